public import Foundation

/// A cursor in a file of its own, replaced atomically (written aside, then
/// renamed), so a crash leaves the old cursor or the new one.
public struct FileCursorStore: CursorStore {
    /// The file.
    public let url: URL

    /// A store in `url`; its folder is created when the first cursor is saved.
    public init(url: URL) {
        self.url = url
    }

    /// The cursor in the file, or nil when there is no file.
    public func loadCursor() async throws -> String? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Writes the cursor, or removes the file for nil.
    public func saveCursor(_ cursor: String?) async throws {
        guard let cursor else {
            if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
            return
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(cursor.utf8).write(to: url, options: .atomic)
    }
}
