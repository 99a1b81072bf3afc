/// XPath 1.0 string literals have no escapes, but either quote kind may
/// delimit them. A value from the CSS subset never holds both kinds (it has
/// no escapes either), so one form always fits. The quote is looked for by
/// Unicode scalar: by `Character`, `\u{600}'` (a prepended concatenation
/// mark) or `'\u{301}` (a combining mark) is one with it, so
/// `a\u{600}' or '1\u{600}'='1\u{600}` was quoted with `'` and read as XPath.
enum XPathLiteral {
    static func quote(_ value: String) -> String {
        value.unicodeScalars.contains("'") ? "\"\(value)\"" : "'\(value)'"
    }
}
