/// A unified diff (`---`/`+++`, `@@` hunks with three lines of context)
/// between two lists of lines, cut to a byte limit on a line boundary.
///
/// The common prefix and suffix are stripped first (a page change is
/// usually local); the rest is aligned by a longest-common-subsequence
/// table when it is small enough, and otherwise shown as one replacement,
/// so the cost stays bounded whatever the input.
struct LineDiff: Sendable {
    enum Line: Equatable, Sendable {
        case context(String)
        case removed(String)
        case added(String)
    }

    static let contextLines = 3
    /// Cells of the LCS table (middle lines before x after) allowed.
    static let maximumTableCells = 1 << 20

    let lines: [Line]

    init(from old: [String], to new: [String]) {
        var prefix = 0
        while prefix < old.count && prefix < new.count && old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix && suffix < new.count - prefix
            && old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            suffix += 1
        }
        let oldMiddle = Array(old[prefix..<(old.count - suffix)])
        let newMiddle = Array(new[prefix..<(new.count - suffix)])
        lines =
            old[..<prefix].map(Line.context)
            + Self.align(oldMiddle, newMiddle)
            + old[(old.count - suffix)...].map(Line.context)
    }

    var hasChanges: Bool {
        lines.contains { if case .context = $0 { false } else { true } }
    }

    private static func align(_ old: [String], _ new: [String]) -> [Line] {
        guard !old.isEmpty, !new.isEmpty, old.count * new.count <= maximumTableCells else {
            return old.map(Line.removed) + new.map(Line.added)
        }
        // lengths[i][j]: LCS length of old[i...] and new[j...].
        let columns = new.count + 1
        var lengths = [Int32](repeating: 0, count: (old.count + 1) * columns)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                lengths[i * columns + j] =
                    old[i] == new[j]
                    ? lengths[(i + 1) * columns + j + 1] + 1
                    : max(lengths[(i + 1) * columns + j], lengths[i * columns + j + 1])
            }
        }
        var result: [Line] = []
        var (i, j) = (0, 0)
        while i < old.count && j < new.count {
            if old[i] == new[j] {
                result.append(.context(old[i]))
                i += 1
                j += 1
            } else if lengths[(i + 1) * columns + j] >= lengths[i * columns + j + 1] {
                result.append(.removed(old[i]))
                i += 1
            } else {
                result.append(.added(new[j]))
                j += 1
            }
        }
        result += old[i...].map(Line.removed) + new[j...].map(Line.added)
        return result
    }

    /// The unified text, at most `maximumBytes` of UTF-8; a cut diff ends
    /// with a line saying so. Empty when nothing changed.
    func unified(maximumBytes: Int, oldName: String = "previous", newName: String = "current") -> String {
        guard hasChanges else { return "" }
        var text = "--- \(oldName)\n+++ \(newName)\n"
        let marker = "... (diff truncated)\n"
        for hunk in hunks() {
            for line in hunk {
                guard text.utf8.count + line.utf8.count + marker.utf8.count <= maximumBytes else {
                    return text.utf8.count + marker.utf8.count <= maximumBytes ? text + marker : ""
                }
                text += line
            }
        }
        return text
    }

    /// Each hunk as text lines (header first), changes with their context;
    /// hunks closer than twice the context are merged.
    private func hunks() -> [[String]] {
        let changed = lines.indices.filter { if case .context = lines[$0] { false } else { true } }
        var ranges: [ClosedRange<Int>] = []
        for index in changed {
            let range = max(index - Self.contextLines, 0)...min(index + Self.contextLines, lines.count - 1)
            if let last = ranges.last, range.lowerBound <= last.upperBound + 1 {
                ranges[ranges.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                ranges.append(range)
            }
        }
        // Line numbers (1-based) of each position in the old and new text.
        var oldNumber = [Int](repeating: 0, count: lines.count + 1)
        var newNumber = [Int](repeating: 0, count: lines.count + 1)
        var (oldLine, newLine) = (1, 1)
        for (index, line) in lines.enumerated() {
            oldNumber[index] = oldLine
            newNumber[index] = newLine
            switch line {
            case .context: oldLine += 1; newLine += 1
            case .removed: oldLine += 1
            case .added: newLine += 1
            }
        }
        return ranges.map { range in
            let slice = lines[range]
            let oldCount = slice.filter { if case .added = $0 { false } else { true } }.count
            let newCount = slice.filter { if case .removed = $0 { false } else { true } }.count
            let oldStart = oldCount == 0 ? oldNumber[range.lowerBound] - 1 : oldNumber[range.lowerBound]
            let newStart = newCount == 0 ? newNumber[range.lowerBound] - 1 : newNumber[range.lowerBound]
            var text = ["@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@\n"]
            for line in slice {
                switch line {
                case .context(let value): text.append(" \(value)\n")
                case .removed(let value): text.append("-\(value)\n")
                case .added(let value): text.append("+\(value)\n")
                }
            }
            return text
        }
    }
}
