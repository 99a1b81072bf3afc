/// The JSON shape shared by the API and the `watches.extract` column:
/// `{"css": "..."}`, `{"xpath": "..."}`, `{"json_pointer": "..."}` or
/// `{"raw": true}`, plus `"ignore": [...]`.
extension ExtractionRule: Codable {
    package enum CodingKeys: String, CodingKey {
        case css, xpath, ignore, raw
        case jsonPointer = "json_pointer"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let css = try container.decodeIfPresent(String.self, forKey: .css) {
            selector = .css(css)
        } else if let xpath = try container.decodeIfPresent(String.self, forKey: .xpath) {
            selector = .xpath(xpath)
        } else if try container.decodeIfPresent(Bool.self, forKey: .raw) == true {
            selector = .raw
        } else {
            selector = .jsonPointer(try container.decode(String.self, forKey: .jsonPointer))
        }
        ignorePatterns = try container.decodeIfPresent([String].self, forKey: .ignore) ?? []
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch selector {
        case .css(let css): try container.encode(css, forKey: .css)
        case .xpath(let xpath): try container.encode(xpath, forKey: .xpath)
        case .jsonPointer(let pointer): try container.encode(pointer, forKey: .jsonPointer)
        case .raw: try container.encode(true, forKey: .raw)
        }
        try container.encode(ignorePatterns, forKey: .ignore)
    }
}
