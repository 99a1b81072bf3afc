import Synchronization

/// Request ids: the client's `X-Request-Id` when it is safe to echo and log,
/// otherwise 128 bits in hex.
enum RequestID {
    static let maxLength = 128
    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let golden: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// A SplitMix64 sequence seeded from the system generator: every id of
    /// the process is distinct (the mix is a bijection of the counter) and
    /// replicas start from unrelated seeds, without a `getrandom` system
    /// call per request. Ids need to be unique, not secret.
    private static let sequence = Atomic<UInt64>(
        {
            var generator = SystemRandomNumberGenerator()
            return generator.next()
        }())
    private static let secondHalfKey: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()

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

    static func generate() -> String {
        let state = sequence.wrappingAdd(golden, ordering: .relaxed).newValue
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for word in [mix(state), mix(state ^ secondHalfKey)] {
            for shift in stride(from: 60, through: 0, by: -4) {
                bytes.append(hexDigits[Int((word >> UInt64(shift)) & 0xF)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The SplitMix64 output function.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
