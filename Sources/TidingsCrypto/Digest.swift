/// The output of a hash or MAC: raw bytes with hex and base64 renderings.
package struct Digest: Hashable, Sendable, CustomStringConvertible {
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Lower-case hexadecimal, as stored in PostgreSQL for content hashes.
    package var hex: String {
        Hex.encode(bytes)
    }

    package var base64: String {
        Base64.encode(bytes)
    }

    package var description: String {
        hex
    }
}
