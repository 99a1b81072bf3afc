extension Duration {
    /// Whole milliseconds, rounded up (a tiny positive duration is 1 ms).
    var roundedUpMilliseconds: Int {
        let (seconds, attoseconds) = components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        let remainder = attoseconds % 1_000_000_000_000_000
        return Int(clamping: milliseconds + (remainder > 0 ? 1 : 0))
    }

    /// "30s", "1.5s" or "250ms", for error messages.
    var shortDescription: String {
        let milliseconds = roundedUpMilliseconds
        if milliseconds < 1000 { return "\(milliseconds)ms" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
        let tenths = (milliseconds + 50) / 100
        return "\(tenths / 10).\(tenths % 10)s"
    }
}
