import TidingsSynchronization

extension Duration {
    /// "30s", "1.5s" or "250ms", for error messages.
    var shortDescription: String {
        let milliseconds = roundedUpMilliseconds
        if milliseconds < 1000 { return "\(milliseconds)ms" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000)s" }
        let tenths = (milliseconds + 50) / 100
        return "\(tenths / 10).\(tenths % 10)s"
    }
}
