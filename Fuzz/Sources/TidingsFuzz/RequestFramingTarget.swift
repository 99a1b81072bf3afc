@testable import TidingsHTTPServer

/// How a request's head frames its body (`RequestFraming`): the input is
/// split at 0x01 bytes into fields, each `C<value>` a Content-Length, `T<value>`
/// a Transfer-Encoding, anything else a field name. What is accepted has
/// exactly one reading: no length and no coding, one length of digits, or
/// a single chunked coding with no length; and no field name with
/// whitespace or a control byte.
enum RequestFramingTarget {
    static func run(_ input: FuzzInput) {
        var lengths: [String] = []
        var codings: [String] = []
        var malformed = false
        for part in input.strings(separatedBy: 0x01) {
            if part.hasPrefix("C") {
                lengths.append(String(part.dropFirst()))
            } else if part.hasPrefix("T") {
                codings.append(String(part.dropFirst()))
            } else if RequestFraming.isMalformedFieldName(part.utf8) {
                malformed = true
            }
        }
        let framing = RequestFraming(contentLengths: lengths, transferEncodings: codings, hasMalformedFieldName: malformed)
        guard framing.problem == nil else { return }
        check(!malformed, "a malformed field name passed")
        check(lengths.count <= 1, "\(lengths.count) lengths passed")
        if let length = lengths.first {
            check(!length.isEmpty && length.utf8.allSatisfy { (0x30...0x39).contains($0) }, "length \(length.debugDescription) passed")
            check(codings.isEmpty, "a length and a coding passed together")
        }
        if !codings.isEmpty {
            let letters = codings.joined(separator: ",").utf8.filter { $0 != 0x20 && $0 != 0x09 }
            check(letters.count == 7 && zip(letters, "chunked".utf8).allSatisfy { $0 | 0x20 == $1 }, "codings \(codings) passed")
        }
    }
}
