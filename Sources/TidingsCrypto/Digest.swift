/// The output of a hash or MAC: raw bytes with hex and base64 renderings.
public struct Digest: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Lower-case hexadecimal, as stored in PostgreSQL for content hashes.
    public var hex: String {
        Hex.encode(bytes)
    }

    public var base64: String {
        Base64.encode(bytes)
    }

    public var description: String {
        hex
    }
}
