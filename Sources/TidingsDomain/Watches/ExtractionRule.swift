import TidingsExtraction

/// Which part of a response a watch compares: the element a CSS selector or
/// XPath picks in HTML, the value a JSON pointer picks in JSON, or the raw
/// body, with the matches of `ignorePatterns` (regular expressions) removed
/// before hashing. A watch without a rule compares readable text
/// (decision 0027).
package struct ExtractionRule: Sendable, Equatable {
    package enum Selector: Sendable, Equatable {
        /// The whole body, markup and scripts included, on one line.
        case raw
        case css(String)
        case xpath(String)
        case jsonPointer(String)
    }

    package static let maximumSelectorLength = 1000
    package static let maximumIgnorePatterns = 20
    package static let maximumPatternLength = 500

    package var selector: Selector
    package var ignorePatterns: [String]

    package init(selector: Selector, ignorePatterns: [String] = []) {
        self.selector = selector
        self.ignorePatterns = ignorePatterns
    }

    /// Why `pattern` cannot be used as an ignore pattern, or nil. Compiling it
    /// with the engine the poller uses (the linear-time subset of
    /// `TidingsExtraction`) is the only reliable syntax check.
    package static func problem(withIgnorePattern pattern: String) -> String? {
        if pattern.isEmpty { return "must not be empty" }
        if pattern.unicodeScalars.count > maximumPatternLength { return "must be at most \(maximumPatternLength) characters" }
        if pattern.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "must not contain control characters (write them as escapes such as \\n)"
        }
        return IgnorePatternSyntax.problem(with: pattern).map { "is not a supported regular expression: it \($0)" }
    }
}
