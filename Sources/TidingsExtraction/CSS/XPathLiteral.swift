/// XPath 1.0 string literals have no escapes, but either quote kind may
/// delimit them. A value from the CSS subset never holds both kinds (it has
/// no escapes either), so one form always fits.
enum XPathLiteral {
    static func quote(_ value: String) -> String {
        value.contains("'") ? "\"\(value)\"" : "'\(value)'"
    }
}
