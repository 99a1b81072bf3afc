import TidingsDomain
import TidingsExtraction
import TidingsHTTPServer

/// `extract` in a watch body: exactly one of `css`, `xpath`, `json_pointer`
/// or `raw` (which must be `true`), and up to 20 `ignore` regular
/// expressions, each compiled to check it.
struct ExtractionRuleBody: Decodable {
    let rule: ExtractionRule

    typealias CodingKeys = ExtractionRule.CodingKeys

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var selectors: [(CodingKeys, String)] = try [CodingKeys.css, .xpath, .jsonPointer].compactMap { key in
            try container.decodeUnlessAbsent(String.self, forKey: key).map { (key, $0) }
        }
        if let raw = try container.decodeUnlessAbsent(Bool.self, forKey: .raw) {
            guard raw else { throw container.fieldProblem(.raw, "must be true (leave extract out, or null, for the readable default)") }
            guard selectors.isEmpty else { throw container.fieldProblem(.raw, "cannot be combined with css, xpath or json_pointer") }
            selectors.append((.raw, ""))
        }
        guard selectors.count == 1, let (key, value) = selectors.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "selector count",
                    underlyingError: FieldProblem("must have exactly one of css, xpath, json_pointer or raw")
                ))
        }
        let selector: ExtractionRule.Selector
        switch key {
        case .raw:
            selector = .raw
        case .jsonPointer:
            try WatchValidation.jsonPointer(value, key: key, in: container)
            selector = .jsonPointer(value)
        case .xpath:
            try TextField.validate(value, key: key, in: container, maxLength: ExtractionRule.maximumSelectorLength)
            if let problem = SelectorCheck.problem(with: .xpath(value)) { throw container.fieldProblem(key, problem) }
            selector = .xpath(value)
        default:
            try TextField.validate(value, key: key, in: container, maxLength: ExtractionRule.maximumSelectorLength)
            if let problem = SelectorCheck.problem(with: .css(value)) { throw container.fieldProblem(key, problem) }
            selector = .css(value)
        }
        rule = ExtractionRule(selector: selector, ignorePatterns: try Self.ignorePatterns(in: container))
    }

    private static func ignorePatterns(in container: KeyedDecodingContainer<CodingKeys>) throws -> [String] {
        guard container.contains(.ignore) else { return [] }
        if try container.decodeNil(forKey: .ignore) { throw container.fieldProblem(.ignore, "must not be null") }
        var list = try container.nestedUnkeyedContainer(forKey: .ignore)
        if let count = list.count, count > ExtractionRule.maximumIgnorePatterns {
            throw container.fieldProblem(.ignore, "must have at most \(ExtractionRule.maximumIgnorePatterns) patterns")
        }
        var patterns: [String] = []
        while !list.isAtEnd {
            let position = ListPosition(intValue: list.currentIndex)
            let pattern = try list.decode(String.self)
            if let problem = ExtractionRule.problem(withIgnorePattern: pattern) {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: list.codingPath + [position],
                        debugDescription: problem,
                        underlyingError: FieldProblem(problem)
                    ))
            }
            patterns.append(pattern)
        }
        return patterns
    }
}

/// An array index in a coding path, printed as `[n]` in field paths.
private struct ListPosition: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }

    init(intValue: Int) {
        self.intValue = intValue
    }

    init?(stringValue: String) {
        nil
    }
}
