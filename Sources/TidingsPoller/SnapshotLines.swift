/// Extracted text keeps its lines (block elements, text lines), but a line
/// can be a long paragraph, and raw text is all one line. For diffs each
/// line is split further into sentences (after `. `, `! `, `? `), and
/// pieces longer than `width` are wrapped at spaces, so a change shows up
/// as the few sentences it touched.
enum SnapshotLines {
    static let width = 160

    static func split(_ text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        var lines: [String] = []
        var current = ""
        var previous: Character?
        for character in text {
            if character == "\n" {
                lines.append(current)
                current = ""
            } else if character == " ", let previous, previous == "." || previous == "!" || previous == "?" {
                lines.append(current)
                current = ""
            } else if character == " ", current.count >= width {
                lines.append(current)
                current = ""
            } else {
                current.append(character)
            }
            previous = character
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
