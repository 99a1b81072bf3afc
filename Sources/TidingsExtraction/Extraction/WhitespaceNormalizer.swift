/// Makes layout changes invisible to the hash.
package enum WhitespaceNormalizer {
    /// Every run of Unicode whitespace becomes one space, and leading and
    /// trailing whitespace goes: the whole text on one line. What the raw
    /// rule compares (and every rule did before readable text, decision 0027).
    package static func normalize(_ text: String) -> String {
        var output = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !output.isEmpty
                continue
            }
            if pendingSpace {
                output.append(" ")
                pendingSpace = false
            }
            output.append(scalar)
        }
        return String(output)
    }

    /// Like `normalize` within each line, but line breaks stay: each line
    /// is trimmed, runs of other whitespace become one space, and blank
    /// lines go, so lines are joined by exactly one `\n`. Readable text
    /// (HTML's visible text, plain text) is compared and diffed this way.
    package static func normalizeLines(_ text: String) -> String {
        var output = String.UnicodeScalarView()
        var pendingSpace = false
        var pendingBreak = false
        for scalar in text.unicodeScalars {
            if isLineBreak(scalar) {
                pendingBreak = !output.isEmpty
                pendingSpace = false
                continue
            }
            if scalar.properties.isWhitespace {
                pendingSpace = !output.isEmpty && !pendingBreak
                continue
            }
            if pendingBreak {
                output.append("\n")
                pendingBreak = false
            } else if pendingSpace {
                output.append(" ")
            }
            pendingSpace = false
            output.append(scalar)
        }
        return String(output)
    }

    /// LF, VT, FF, CR, NEL and the Unicode line and paragraph separators.
    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }
}
