/// Extracted text is whitespace-normalized to one line, which would make
/// every diff a single replaced line. For diffs it is split into sentences
/// (after `. `, `! `, `? `), and pieces longer than `width` are wrapped at
/// spaces, so a change shows up as the few sentences it touched.
enum SnapshotLines {
    static let width = 160

    static func split(_ text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        var lines: [String] = []
        var current = ""
        var previous: Character?
        for character in text {
            if character == " ", let previous, previous == "." || previous == "!" || previous == "?" {
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
