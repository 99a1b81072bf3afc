/// libpq ends its messages with a newline that log lines should not carry.
extension String {
    var trimmingTrailingWhitespace: String {
        var trimmed = Substring(self)
        while let last = trimmed.last, last.isWhitespace {
            trimmed.removeLast()
        }
        return String(trimmed)
    }
}
