import FoundationEssentials

/// The body of a push service's or token endpoint's answer, read as
/// hostile: at most `maximumSize` bytes are kept (the client drops the rest
/// and marks the body truncated), a truncated body is not parsed at all,
/// and codes taken from it are kept only when they look like codes.
package enum PushAnswerBody {
    /// Bytes of an answer kept. Real error bodies are under a kilobyte; a
    /// token endpoint's grant is a few hundred bytes.
    package static let maximumSize = 16 * 1024

    private static let decoder = JSONDecoder()

    /// `T` decoded from `body`, nil when the body was cut short or is not
    /// JSON of that shape (types are checked; unknown members are ignored).
    package static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8], truncated: Bool) -> T? {
        guard !truncated, !body.isEmpty, body.count <= maximumSize else { return nil }
        return try? decoder.decode(T.self, from: Data(body))
    }

    /// `text` when it is an error code (`BadDeviceToken`, `UNREGISTERED`,
    /// `invalid_grant`: 1 to 64 ASCII letters, digits and underscores),
    /// else nil: free text from the answer never reaches a reason.
    package static func code(_ text: String?) -> String? {
        guard let text, (1...64).contains(text.utf8.count),
            text.utf8.allSatisfy({ byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            })
        else { return nil }
        return text
    }

    /// `text` when it is a short identifier printed as visible ASCII (an
    /// `apns-id`, an FCM message name), else nil.
    package static func identifier(_ text: String?, maximumLength: Int) -> String? {
        guard let text, (1...maximumLength).contains(text.utf8.count),
            text.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return nil }
        return text
    }
}
