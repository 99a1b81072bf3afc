extension String {
    /// The longest prefix of whole characters that fits in `maximumBytes`
    /// of UTF-8: a size cap that never splits a character. Found from the
    /// byte offset backwards (a step or two), not by walking every
    /// character from the start.
    package func prefix(utf8Bytes maximumBytes: Int) -> String {
        guard utf8.count > maximumBytes else { return self }
        var end = utf8.index(utf8.startIndex, offsetBy: max(maximumBytes, 0))
        // Back to the start of a Unicode scalar, then of a character.
        while end > startIndex, UTF8.isContinuation(utf8[end]) {
            end = utf8.index(before: end)
        }
        while end > startIndex, end.samePosition(in: self) == nil {
            end = unicodeScalars.index(before: end)
        }
        return String(self[..<end])
    }
}
