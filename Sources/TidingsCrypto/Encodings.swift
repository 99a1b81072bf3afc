/// Hexadecimal encoding and decoding.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
        var characters = [UInt8]()
        characters.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    package static func decode(_ string: String) -> [UInt8]? {
        let characters = Array(string.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(characters.count / 2)
        var index = 0
        while index < characters.count {
            guard let high = value(characters[index]), let low = value(characters[index + 1]) else { return nil }
            output.append(high << 4 | low)
            index += 2
        }
        return output
    }

    private static func value(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Base64 (RFC 4648) in the standard and URL-safe alphabets.
package enum Base64 {
    private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
        encode(bytes, alphabet: standard, padded: true)
    }

    package static func encodeURLSafe(_ bytes: [UInt8]) -> String {
        encode(bytes, alphabet: urlSafe, padded: false)
    }

    /// Decodes either alphabet, with or without padding; nil for anything else.
    package static func decode(_ string: String) -> [UInt8]? {
        var sextets = [UInt8]()
        sextets.reserveCapacity(string.utf8.count)
        var sawPadding = false
        for character in string.utf8 {
            if character == UInt8(ascii: "=") {
                sawPadding = true
                continue
            }
            guard !sawPadding, let value = sextet(character) else { return nil }
            sextets.append(value)
        }
        if sextets.count % 4 == 1 { return nil }
        var output = [UInt8]()
        output.reserveCapacity(sextets.count * 3 / 4)
        var index = 0
        while index + 1 < sextets.count {
            let chunk = sextets[index..<min(index + 4, sextets.count)]
            let values = Array(chunk) + Array(repeating: 0, count: 4 - chunk.count)
            let combined = UInt32(values[0]) << 18 | UInt32(values[1]) << 12 | UInt32(values[2]) << 6 | UInt32(values[3])
            output.append(UInt8(truncatingIfNeeded: combined >> 16))
            if chunk.count > 2 { output.append(UInt8(truncatingIfNeeded: combined >> 8)) }
            if chunk.count > 3 { output.append(UInt8(truncatingIfNeeded: combined)) }
            index += 4
        }
        return output
    }

    private static func encode(_ bytes: [UInt8], alphabet: [UInt8], padded: Bool) -> String {
        var output = [UInt8]()
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let combined = b0 << 16 | b1 << 8 | b2
            output.append(alphabet[Int(combined >> 18 & 0x3f)])
            output.append(alphabet[Int(combined >> 12 & 0x3f)])
            if remaining > 1 {
                output.append(alphabet[Int(combined >> 6 & 0x3f)])
            } else if padded {
                output.append(UInt8(ascii: "="))
            }
            if remaining > 2 {
                output.append(alphabet[Int(combined & 0x3f)])
            } else if padded {
                output.append(UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
