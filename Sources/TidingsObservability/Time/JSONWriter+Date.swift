package import FoundationEssentials
package import TidingsJSON

extension JSONWriter {
    /// As `JSONEncoder` with Tidings' date strategy writes dates: an
    /// RFC 3339 `UTCTimestamp` in a string.
    package mutating func value(_ value: Date?) {
        guard let value else { return null() }
        unescapedString { UTCTimestamp.append(value, to: &$0) }
    }
}
