/// Makes layout changes invisible to the hash: every run of Unicode
/// whitespace becomes one space, and leading and trailing whitespace goes.
package enum WhitespaceNormalizer {
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
}
