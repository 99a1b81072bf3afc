import FoundationEssentials
@testable import TidingsHTTPServer
import TidingsJSON
import TidingsObservability

/// The HTTP edge's JSON: request bodies are checked with AnyJSONValue and
/// decoded with JSONCoding.decoder; responses are written by JSONWriter,
/// which must match JSONCoding.encoder byte for byte. Any body decodes or
/// throws; every string (the input's text, and each NUL-separated part)
/// written by JSONWriter equals the encoder's bytes and decodes back to
/// itself; a date written by JSONWriter equals the encoder's.
enum JSONWriterTarget {
    static func run(_ input: FuzzInput) {
        _ = try? JSONCoding.decoder.decode(AnyJSONValue.self, from: Data(input.bytes))
        _ = try? JSONCoding.decoder.decode([String: String].self, from: Data(input.bytes))

        let strings = input.strings()
        var writer = JSONWriter()
        writer.value(strings)
        let encoded = try! JSONCoding.encoder.encode(strings)
        check(writer.bytes == Array(encoded), "writer \(String(decoding: writer.bytes, as: UTF8.self)) != encoder \(String(decoding: encoded, as: UTF8.self))")
        let decoded = try? JSONCoding.decoder.decode([String].self, from: Data(writer.bytes))
        check(decoded == strings, "\(strings) -> \(String(decoding: writer.bytes, as: UTF8.self)) -> \(String(describing: decoded))")

        // Dates between year 0 and 9999 at millisecond resolution.
        let milliseconds = input.int64Prefix % 253_402_300_800_000
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        var dateWriter = JSONWriter()
        dateWriter.beginArray()
        dateWriter.value(date)
        dateWriter.endArray()
        let encodedDate = try! JSONCoding.encoder.encode([date])
        check(dateWriter.bytes == Array(encodedDate), "date \(String(decoding: dateWriter.bytes, as: UTF8.self)) != \(String(decoding: encodedDate, as: UTF8.self))")
    }
}
