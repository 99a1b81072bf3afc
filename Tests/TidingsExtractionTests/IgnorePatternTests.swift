import Testing

@testable import TidingsExtraction

/// The linear-time ignore-pattern engine: what it removes, what it
/// refuses, and that patterns which make backtracking engines run for
/// ages finish at once.
struct IgnorePatternTests {
    private func removing(_ patterns: [String], from text: String, limits: ExtractionLimits = .default) throws -> String {
        try IgnorePatterns(patterns).removeMatches(from: text, budget: ExtractionBudget(limits: limits))
    }

    @Test(arguments: [
        // The patterns of the existing tests and the README.
        (#"\d{4}-\d{2}-\d{2} \d{2}:\d{2}"#, "at 2024-01-31 12:00 ok", "at  ok"),
        (#"build \d+"#, "v1 build 1234 done", "v1  done"),
        (#""generated":"[^"]*",?"#, #"{"a":1,"generated":"now","b":2}"#, #"{"a":1,"b":2}"#),
        (#"Request id [0-9A-F-]+\."#, "x Request id 0A-FF. y", "x  y"),
        (#"Updated \d+ minutes ago"#, "Updated 5 minutes ago!", "!"),
        // Alternation prefers the first branch that matches, like Regex.
        ("ab|abc", "abcd", "cd"),
        ("a+?", "aaa", ""),
        ("<.+?>", "<b>bold</b>", "bold"),
        ("<.+>", "<b>bold</b>!", "!"),
        ("x*", "axxb", "ab"),
        ("^a", "aaa", "aa"),
        ("a$", "aaa", "aa"),
        ("(?m)^x", "x1\nx2", "1\n2"),
        (#"\bcat\b"#, "cat concat cat.", " concat ."),
        ("(?i)hello", "Hello HELLO hello", "  "),
        ("[^a-c]", "abcdef", "abc"),
        ("a{2,3}", "aaaaaaa", "a"),
        ("a{2}b{,2}", "aab aabbb", " b"),
        (#"\x41\u{42}"#, "xABy", "xy"),
        (".", "a\nb", "\n"),
        ("(?s).", "a\nb", ""),
        (#"(?<year>\d{4})"#, "in 2024", "in "),
        ("{x", "a{x", "a"),
        (#"\s+"#, "a \u{00A0}\t b", "ab"),
        (#"\d"#, "٣3", ""),
    ])
    func removesWhatRegexWould(pattern: String, text: String, expected: String) throws {
        #expect(try removing([pattern], from: text) == expected)
        // Patterns without the engine's own extensions mean the same to Swift Regex.
        let swift = try Regex(pattern)
        #expect(text.replacing(swift, with: "") == expected)
    }

    @Test(arguments: [
        (#"(a)\1"#, "backreference"),
        ("(?=a)", "lookahead"),
        ("(?<!a)b", "lookbehind"),
        ("(?>a)", "atomic"),
        ("a++", "possessive"),
        (#"\p{L}"#, "Unicode property"),
        ("[[:alpha:]]", "nested classes"),
        ("[a-z&&c]", "set operation"),
        ("a{1001}", "more than 1000"),
        ("(a{1000}){20}", "too large"),
        ("(unclosed", "unclosed '('"),
        ("a)", "unmatched ')'"),
        ("[z-a]", "backwards"),
        ("*a", "nothing to repeat"),
        (#"\q"#, "unknown or unsupported escape"),
        ("(?x)a b", "group option"),
    ])
    func refusesWhatItCannotRunInLinearTime(pattern: String, phrase: String) {
        let problem = IgnorePatternSyntax.problem(with: pattern)
        #expect(problem?.contains(phrase) == true, "\(pattern): \(problem ?? "accepted")")
    }

    @Test(arguments: [#"(a+)+$"#, #"(a|aa)+$"#, #"(a|a)*b"#, #"(\w+\s?)*$"#, #"^(a+)+$"#])
    func catastrophicBacktrackingPatternsFinish(pattern: String) throws {
        // 2^n paths for a backtracking engine; one pass here. The time
        // limit is loose because a debug build at load 10 took more than
        // the default 2 s; a backtracking engine would not finish in years.
        let text = String(repeating: "a", count: 20_000) + "b"
        var limits = ExtractionLimits()
        limits.timeLimit = .seconds(60)
        let result = try removing([pattern], from: text, limits: limits)
        #expect(result.count <= text.count)
    }

    @Test func stepBudgetStopsAQuadraticSearch() throws {
        // Each search runs to the end for the first branch before the
        // second one's match counts, then starts over one later.
        var limits = ExtractionLimits()
        limits.patternStepLimit = 200_000
        let error = try #require(throws: ExtractionError.self) {
            try removing(["x", "a.*b|a"], from: String(repeating: "a", count: 5_000), limits: limits)
        }
        #expect(error.code == .operationLimitExceeded)
        #expect(error.description == "operation_limit_exceeded: ignore pattern 2 needed more than 200000 matching steps")
    }

    @Test func deadlineStopsAPatternToo() throws {
        var limits = ExtractionLimits()
        limits.timeLimit = .zero
        let error = try #require(throws: ExtractionError.self) {
            try removing(["a.*b|a"], from: String(repeating: "a", count: 5_000), limits: limits)
        }
        #expect(error.code == .timeLimitExceeded)
        #expect(error.message.contains("matching ignore pattern 1"))
    }
}
