import Testing
import TidingsTestSupport

@testable import TidingsExtraction

/// The byte-level normalizer and prefix against plain definitions written
/// with Unicode scalar properties and characters, over texts full of every
/// White_Space character, multi-byte letters and combining marks.
@Suite struct WhitespaceNormalizerTests {
    /// Every White_Space scalar, and some that look close and are not
    /// (ZERO WIDTH SPACE, BOM, U+180E, U+2060).
    static let alphabet: [Unicode.Scalar] = [
        "\t", "\n", "\u{0B}", "\u{0C}", "\r", " ", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}", "\u{2005}", "\u{200A}",
        "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}",
        "\u{200B}", "\u{FEFF}", "\u{180E}", "\u{2060}", "\u{2080}", "\u{3001}", "\u{C2}", "\u{E1}",
        "a", "Z", "é", "\u{301}", "中", "😀", "\u{1F1EB}", "\u{1F1F7}",
    ]

    static func randomTexts(count: Int) -> [String] {
        var generator = SeededRandomNumberGenerator(seed: 0x5EED)
        return (0..<count).map { _ in
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...40, using: &generator) {
                scalars.append(alphabet.randomElement(using: &generator)!)
            }
            return String(scalars)
        }
    }

    static func reference(_ text: String, keepingLineBreaks: Bool) -> String {
        var output = String.UnicodeScalarView()
        var pendingSpace = false
        var pendingBreak = false
        for scalar in text.unicodeScalars {
            let isBreak = [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029].contains(scalar.value)
            if isBreak && keepingLineBreaks {
                pendingBreak = !output.isEmpty
                pendingSpace = false
                continue
            }
            if scalar.properties.isWhitespace {
                pendingSpace = !output.isEmpty && !pendingBreak
                continue
            }
            if pendingBreak { output.append("\n") } else if pendingSpace { output.append(" ") }
            pendingBreak = false
            pendingSpace = false
            output.append(scalar)
        }
        return String(output)
    }

    @Test func agreesWithUnicodeWhiteSpaceOnRandomTexts() {
        for text in Self.randomTexts(count: 3_000) {
            #expect(
                WhitespaceNormalizer.normalize(text) == Self.reference(text, keepingLineBreaks: false),
                "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(
                WhitespaceNormalizer.normalizeLines(text) == Self.reference(text, keepingLineBreaks: true),
                "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    /// Long seeded prose, the shape pages have: words, mostly single
    /// spaces, now and then a run, a line break or Unicode whitespace,
    /// multi-byte letters, and texts that start or end with whitespace.
    /// Guards any faster path over long runs of plain bytes.
    @Test func agreesWithTheReferenceOnLongProse() {
        var generator = SeededRandomNumberGenerator(seed: 0x9_205E)
        let words = ["a", "to", "word", "longerwords", "é", "中文", "x\u{301}", "😀", "\u{200B}", "~!"]
        let gaps = [" ", " ", " ", " ", " ", " ", "  ", "\n", " \n ", "\u{A0}", "\t", "\u{2028}", "\u{3000}", "\r\n", ""]
        for _ in 0..<3_000 {
            var text = Bool.random(using: &generator) ? gaps.randomElement(using: &generator)! : ""
            for _ in 0..<Int.random(in: 1...90, using: &generator) {
                text += words.randomElement(using: &generator)! + gaps.randomElement(using: &generator)!
            }
            #expect(WhitespaceNormalizer.normalize(text) == Self.reference(text, keepingLineBreaks: false), "\(text.debugDescription)")
            #expect(WhitespaceNormalizer.normalizeLines(text) == Self.reference(text, keepingLineBreaks: true), "\(text.debugDescription)")
        }
    }

    @Test func theAlphabetsWhitespaceIsExactlyUnicodes() {
        for scalar in Self.alphabet {
            #expect(
                WhitespaceNormalizer.normalize("a\(scalar)b") == (scalar.properties.isWhitespace ? "a b" : "a\(scalar)b"),
                "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test func prefixKeepsWholeCharactersUpToTheByteLimit() {
        for text in Self.randomTexts(count: 1_000) {
            for limit in [0, 1, 2, 3, 5, 8, 13, 40] {
                var expected = ""
                for character in text {
                    guard expected.utf8.count + character.utf8.count <= limit else { break }
                    expected.append(character)
                }
                #expect(text.prefix(utf8Bytes: limit) == expected, "\(text.unicodeScalars.map { String($0.value, radix: 16) }) at \(limit)")
            }
        }
    }
}
