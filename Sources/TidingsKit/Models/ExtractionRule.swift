/// What part of a page a watch compares: one selector (or the raw body)
/// and optional patterns whose matches are ignored. Without a rule a watch
/// compares a page's readable text.
public struct ExtractionRule: Sendable, Hashable, Codable {
    /// A CSS selector.
    public var css: String?
    /// An XPath 1.0 expression.
    public var xpath: String?
    /// An RFC 6901 JSON pointer, for JSON answers.
    public var jsonPointer: String?
    /// `true`: the whole body byte for byte.
    public var raw: Bool?
    /// Regular expressions (a linear-time subset) removed before comparing.
    public var ignore: [String]?

    /// The elements matching a CSS selector.
    public static func css(_ selector: String, ignoring ignore: [String]? = nil) -> ExtractionRule {
        ExtractionRule(css: selector, ignore: ignore)
    }

    /// The nodes matching an XPath expression.
    public static func xpath(_ expression: String, ignoring ignore: [String]? = nil) -> ExtractionRule {
        ExtractionRule(xpath: expression, ignore: ignore)
    }

    /// The value at a JSON pointer.
    public static func jsonPointer(_ pointer: String, ignoring ignore: [String]? = nil) -> ExtractionRule {
        ExtractionRule(jsonPointer: pointer, ignore: ignore)
    }

    /// The whole body, markup included.
    public static func raw(ignoring ignore: [String]? = nil) -> ExtractionRule {
        ExtractionRule(raw: true, ignore: ignore)
    }

    private init(css: String? = nil, xpath: String? = nil, jsonPointer: String? = nil, raw: Bool? = nil, ignore: [String]?) {
        self.css = css
        self.xpath = xpath
        self.jsonPointer = jsonPointer
        self.raw = raw
        self.ignore = ignore
    }

    private enum CodingKeys: String, CodingKey {
        case css, xpath, raw, ignore
        case jsonPointer = "json_pointer"
    }
}
