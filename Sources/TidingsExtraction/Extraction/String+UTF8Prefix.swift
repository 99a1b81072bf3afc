extension String {
    /// The longest prefix of whole characters that fits in `maximumBytes`
    /// of UTF-8: a size cap that never splits a character.
    package func prefix(utf8Bytes maximumBytes: Int) -> String {
        guard utf8.count > maximumBytes else { return self }
        var end = startIndex
        var used = 0
        for index in indices {
            let size = self[index].utf8.count
            if used + size > maximumBytes { break }
            used += size
            end = self.index(after: index)
        }
        return String(self[..<end])
    }
}
