/// The compiled ignore patterns of a spec.
///
/// Swift `Regex` has no time limit and backtracks, so a pathological pattern
/// could run for very long on a large text. Patterns therefore only see the
/// first `scopeLimit` characters of the extracted text; the rest is kept as
/// is (and still hashed). That bounds the input, not the worst case of a
/// pattern on it: the API keeps patterns short (see `ExtractionRule`).
struct IgnorePatterns {
    static let scopeLimit = 1 << 20

    private let expressions: [Regex<AnyRegexOutput>]

    init(_ patterns: [String]) throws {
        expressions = try patterns.enumerated().map { index, pattern in
            do {
                return try Regex(pattern)
            } catch {
                throw ExtractionError(code: .invalidIgnorePattern, message: "ignore pattern \(index + 1) is not a valid regular expression")
            }
        }
    }

    func removeMatches(from text: String) -> String {
        guard !expressions.isEmpty else { return text }
        let scopeEnd = text.index(text.startIndex, offsetBy: Self.scopeLimit, limitedBy: text.endIndex) ?? text.endIndex
        var scope = String(text[..<scopeEnd])
        for expression in expressions {
            scope = scope.replacing(expression, with: "")
        }
        return scope + text[scopeEnd...]
    }
}
