/// XPath 1.0's string value of a number (section 4.2): integers without a
/// fraction, `NaN` and `Infinity` spelled out.
enum XPathNumber {
    static func render(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
