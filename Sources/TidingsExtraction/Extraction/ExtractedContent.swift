/// The result of extraction: what a watch compares and what a change keeps.
package struct ExtractedContent: Sendable, Equatable {
    /// The normalized text, cut at `ContentExtractor.snapshotByteLimit`
    /// UTF-8 bytes (on a character boundary) for storage and diffs.
    package var text: String
    /// Whether `text` was cut; `hash` always covers the full text.
    package var isTruncated: Bool
    /// Lower-case hex SHA-256 of the full normalized text's UTF-8 bytes.
    package var hash: String

    package init(text: String, isTruncated: Bool, hash: String) {
        self.text = text
        self.isTruncated = isTruncated
        self.hash = hash
    }
}
