@testable import TidingsPoller

/// The diff sent with a change: old and new snapshot text from two fetches
/// of a page. The input is old and new text split at the first 0x00 byte.
/// The diff's lines reproduce both texts, and the unified text never
/// exceeds its byte limit. Snapshot text is also split into sentences as
/// the poller does.
enum LineDiffTarget {
    static func run(_ input: FuzzInput) {
        let separator = input.bytes.firstIndex(of: 0) ?? input.bytes.endIndex
        let oldText = String(decoding: input.bytes[..<separator], as: UTF8.self)
        let newText = String(decoding: input.bytes[separator...].dropFirst(), as: UTF8.self)
        let old = oldText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let new = newText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)

        let diff = LineDiff(from: old, to: new)
        var rebuiltOld: [String] = []
        var rebuiltNew: [String] = []
        for line in diff.lines {
            switch line {
            case .context(let text): rebuiltOld.append(text); rebuiltNew.append(text)
            case .removed(let text): rebuiltOld.append(text)
            case .added(let text): rebuiltNew.append(text)
            }
        }
        check(rebuiltOld == old, "the diff does not reproduce the old text")
        check(rebuiltNew == new, "the diff does not reproduce the new text")
        check(diff.hasChanges == (old != new), "hasChanges is \(diff.hasChanges)")

        let limit = Int(input.bytes.first ?? 0) * 8
        let unified = diff.unified(maximumBytes: limit)
        check(unified.utf8.count <= limit, "unified diff of \(unified.utf8.count) bytes over its limit \(limit)")
        let whole = diff.unified(maximumBytes: .max)
        check(whole.isEmpty == (old == new), "unified text empty: \(whole.isEmpty)")

        let sentences = SnapshotLines.split(newText)
        // A line is wrapped at the first space once it reaches the width:
        // a longer one holds spaces only before it (a long word after an
        // early space stays whole).
        check(sentences.allSatisfy { !$0.dropFirst(SnapshotLines.width).contains(" ") }, "a space past the width in a sentence line")
        _ = LineDiff(from: SnapshotLines.split(oldText), to: sentences).unified(maximumBytes: 4096)
    }
}
