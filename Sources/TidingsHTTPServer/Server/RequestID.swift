/// Request ids: the client's `X-Request-Id` when it is safe to echo and log,
/// otherwise 128 random bits in hex.
enum RequestID {
    static let maxLength = 128
    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func accepting(_ candidate: String?) -> String {
        if let candidate, isAcceptable(candidate) { return candidate }
        return generate()
    }

    /// 1...128 characters of `[A-Za-z0-9._:-]`.
    static func isAcceptable(_ candidate: String) -> Bool {
        let bytes = candidate.utf8
        guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }

    /// Ids only need to be unique, not secret, so the system generator is enough.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let words = [generator.next() as UInt64, generator.next() as UInt64]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for word in words {
            for shift in stride(from: 60, through: 0, by: -4) {
                bytes.append(hexDigits[Int((word >> UInt64(shift)) & 0xF)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
