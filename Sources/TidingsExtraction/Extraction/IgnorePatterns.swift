/// The compiled ignore patterns of a spec.
///
/// Patterns use a subset of Swift `Regex` syntax run by `PatternMatcher`,
/// which never backtracks (docs/decisions/0002-linear-time-ignore-patterns.md):
/// its work grows with text length times pattern size, never exponentially,
/// and a step budget and the extraction's deadline bound even that.
/// Patterns only see the first `scopeLimit` scalars of the selected text;
/// the rest is kept as is (and still hashed).
struct IgnorePatterns {
    static let scopeLimit = 1 << 20

    private let matchers: [PatternMatcher]

    init(_ patterns: [String]) throws(ExtractionError) {
        var matchers: [PatternMatcher] = []
        for (index, pattern) in patterns.enumerated() {
            do {
                matchers.append(PatternMatcher(try PatternProgram(PatternParser.parse(pattern))))
            } catch {
                throw ExtractionError(code: .invalidIgnorePattern, message: "ignore pattern \(index + 1) \(error.message)")
            }
        }
        self.matchers = matchers
    }

    func removeMatches(from text: String, budget: ExtractionBudget) throws(ExtractionError) -> String {
        guard !matchers.isEmpty else { return text }
        var scope: [Unicode.Scalar] = []
        var rest = text.unicodeScalars.startIndex
        for scalar in text.unicodeScalars.prefix(Self.scopeLimit) {
            scope.append(scalar)
            rest = text.unicodeScalars.index(after: rest)
        }
        for (index, matcher) in matchers.enumerated() {
            var meter = PatternMeter(budget: budget, patternNumber: index + 1)
            scope = try matcher.removeMatches(from: scope, meter: &meter)
        }
        var output = String.UnicodeScalarView()
        output.append(contentsOf: scope)
        output.append(contentsOf: text.unicodeScalars[rest...])
        return String(output)
    }
}

/// Checks ignore patterns for the API with the engine the poller runs.
package enum IgnorePatternSyntax {
    /// Why `pattern` cannot be used, as a phrase ("uses a lookahead or
    /// lookbehind, which is not supported"), or nil.
    package static func problem(with pattern: String) -> String? {
        do {
            _ = try PatternProgram(PatternParser.parse(pattern))
            return nil
        } catch {
            return error.message
        }
    }
}
