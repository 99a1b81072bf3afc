import FoundationEssentials

/// Extra request headers a target is fetched with (e.g. `Authorization` for a
/// private page). Values are secrets: they are stored sealed
/// (`StoredSecrets`), opened only to fetch, and never shown again; only
/// `names` leave the domain.
///
/// Names are kept in lower case (HTTP names are case-insensitive, and one
/// spelling makes equal header sets share a target).
package struct RequestHeaders: Sendable, Equatable {
    package static let maximumCount = 20
    package static let maximumValueLength = 8192
    /// Real header names are tens of bytes; servers refuse heads of 8-16 KiB.
    package static let maximumNameLength = 256
    /// Headers the HTTP client must own: framing and routing.
    package static let forbiddenNames: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]

    package static let none = RequestHeaders(fields: [:])

    /// Lower-case name -> value.
    package let fields: [String: String]

    /// `fields` keyed by any spelling of the names; later spellings of one
    /// name replace earlier ones (callers reject duplicates first).
    package init(fields: [String: String]) {
        var lowered: [String: String] = [:]
        for (name, value) in fields {
            lowered[name.lowercased()] = value
        }
        self.fields = lowered
    }

    package var names: [String] {
        fields.keys.sorted()
    }

    /// Why `name` cannot be sent, or nil: it must be an RFC 9110 token and
    /// not one the client manages itself.
    package static func problem(withName name: String) -> String? {
        if name.isEmpty || !name.utf8.allSatisfy(isTokenCharacter) { return "is not a valid HTTP header name" }
        if name.utf8.count > maximumNameLength { return "must be at most \(maximumNameLength) characters" }
        if forbiddenNames.contains(name.lowercased()) { return "cannot be set; the HTTP client manages this header" }
        return nil
    }

    /// Why `value` cannot be sent, or nil. The value itself never appears in
    /// the message.
    package static func problem(withValue value: String) -> String? {
        if value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            return "must not contain CR, LF or other control characters"
        }
        if value.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return "must not be empty" }
        if value.utf8.count > maximumValueLength { return "must be at most \(maximumValueLength) bytes" }
        return nil
    }

    /// `name:value\n` lines sorted by name: unambiguous, since names are
    /// tokens (no `:`) and values hold no line breaks. Targets are told
    /// apart by a keyed hash of it (`StoredSecrets.fingerprint`).
    var canonicalText: String {
        var canonical = ""
        for name in names {
            canonical += "\(name):\(fields[name] ?? "")\n"
        }
        return canonical
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
