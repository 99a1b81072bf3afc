import TidingsDomain
@testable import TidingsExtraction

/// Ignore patterns of watch extraction rules (API users write them; the
/// poller runs them on every page): `ExtractionRule.problem`,
/// `PatternParser`, `PatternProgram` and `PatternMatcher` (Extraction). The
/// input is a pattern, NUL, then text. A pattern the API accepts compiles;
/// removing matches only removes (the result is a subsequence of the text)
/// and gives the same text with the pattern wrapped in `(?:...)`; and the
/// matcher stays within its linear bound: a text of n scalars and a program
/// of m instructions take at most (n + 2)((n + 1) 2m + n + 1) steps, so with
/// that step budget it never reports `operation_limit_exceeded`.
enum IgnorePatternsTarget {
    /// Step budgets above this are cut to it (the matcher then may run out).
    static let stepCap = 1_000_000

    static func run(_ input: FuzzInput) {
        let nul = input.bytes.firstIndex(of: 0) ?? input.bytes.endIndex
        let pattern = String(decoding: input.bytes[..<nul], as: UTF8.self)
        let text = String(decoding: input.bytes[nul...].dropFirst(), as: UTF8.self)

        let apiProblem = ExtractionRule.problem(withIgnorePattern: pattern)
        // Longer patterns never reach the engine (the API refuses them).
        guard pattern.unicodeScalars.count <= ExtractionRule.maximumPatternLength else { return }
        let syntaxProblem = IgnorePatternSyntax.problem(with: pattern)
        if apiProblem == nil {
            check(syntaxProblem == nil, "API accepted \(pattern.debugDescription), the engine refuses it: \(syntaxProblem ?? "")")
        }
        guard syntaxProblem == nil else { return }

        let program: PatternProgram
        do {
            program = try PatternProgram(PatternParser.parse(pattern))
        } catch {
            check(false, "\(pattern.debugDescription) checked fine, then failed to compile: \(error.message)")
            return
        }
        let n = text.unicodeScalars.count, m = program.instructions.count
        check(m <= PatternProgram.maximumSize, "\(pattern.debugDescription) compiled to \(m) instructions")
        let (bound, overflow) = linearBound(n: n, m: m)
        var limits = ExtractionLimits()
        limits.patternStepLimit = overflow ? stepCap : min(bound, stepCap)
        // libFuzzer's -timeout (10 s) is the limit on time: a slow matcher is a finding.
        limits.timeLimit = .seconds(60)

        guard let kept = remove([pattern], from: text, limits: limits, withinBound: !overflow && bound <= stepCap) else { return }
        check(isSubsequence(kept.unicodeScalars, of: text.unicodeScalars),
              "\(pattern.debugDescription) on \(text.debugDescription) gave \(kept.debugDescription), not a subsequence")
        if let wrapped = remove(["(?:" + pattern + ")"], from: text, limits: limits, withinBound: false) {
            check(wrapped == kept, "(?:\(pattern)) gave \(wrapped.debugDescription), \(pattern.debugDescription) gave \(kept.debugDescription)")
        }
    }

    /// The text with the matches removed, or nil when a limit was reached
    /// (a failed property when `withinBound`).
    private static func remove(_ patterns: [String], from text: String, limits: ExtractionLimits, withinBound: Bool) -> String? {
        let compiled: IgnorePatterns
        do {
            compiled = try IgnorePatterns(patterns)
        } catch {
            check(false, "\(patterns) does not compile: \(error.message)")
            return nil
        }
        do {
            return try compiled.removeMatches(from: text, budget: ExtractionBudget(limits: limits))
        } catch {
            check(error.code == .operationLimitExceeded || error.code == .timeLimitExceeded, "\(patterns): \(error)")
            check(!(withinBound && error.code == .operationLimitExceeded),
                  "\(patterns) on \(text.unicodeScalars.count) scalars needed more than its linear bound \(limits.patternStepLimit)")
            return nil
        }
    }

    /// Steps: at most n + 2 searches; each visits every position from its
    /// start with at most m steps adding threads and m running them, plus
    /// at most n skipping positions where no match can start.
    private static func linearBound(n: Int, m: Int) -> (Int, Bool) {
        let perPosition = m.multipliedReportingOverflow(by: 2)
        let positions = (n + 1).multipliedReportingOverflow(by: perPosition.partialValue)
        let search = positions.partialValue.addingReportingOverflow(n + 1)
        let total = (n + 2).multipliedReportingOverflow(by: search.partialValue)
        return (total.partialValue, perPosition.overflow || positions.overflow || search.overflow || total.overflow)
    }

    private static func isSubsequence(_ kept: String.UnicodeScalarView, of text: String.UnicodeScalarView) -> Bool {
        var iterator = text.makeIterator()
        outer: for scalar in kept {
            while let next = iterator.next() {
                if next == scalar { continue outer }
            }
            return false
        }
        return true
    }
}
