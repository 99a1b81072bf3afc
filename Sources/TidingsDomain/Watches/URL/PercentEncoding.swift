/// Percent-encoding normalization of one URL component (RFC 3986 6.2.2.2):
/// escapes of unreserved characters are decoded, other escapes get
/// upper-case hex, and bytes that may not appear literally are encoded.
/// Reserved characters are never decoded or encoded: `%2F` and `/` differ.
enum PercentEncoding {
    enum Component {
        case path
        case query
    }

    static func normalize(_ text: Substring, allowing component: Component) throws(URLNormalizationError) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else {
                    throw URLNormalizationError(.invalidPercentEncoding, "has a '%' that is not followed by two hex digits")
                }
                let decoded = high << 4 | low
                if isUnreserved(decoded) {
                    output.append(decoded)
                } else {
                    appendEscape(decoded, to: &output)
                }
                index += 3
                continue
            }
            if isUnreserved(byte) || isSubDelimiter(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
                || byte == UInt8(ascii: "/") || (component == .query && byte == UInt8(ascii: "?"))
            {
                output.append(byte)
            } else {
                appendEscape(byte, to: &output)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func appendEscape(_ byte: UInt8, to output: inout [UInt8]) {
        let digits = Array("0123456789ABCDEF".utf8)
        output.append(UInt8(ascii: "%"))
        output.append(digits[Int(byte >> 4)])
        output.append(digits[Int(byte & 0x0F)])
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// ALPHA / DIGIT / "-" / "." / "_" / "~"
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
        }
    }

    /// "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        Array("!$&'()*+,;=".utf8).contains(byte)
    }
}
