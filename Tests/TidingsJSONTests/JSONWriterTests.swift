import Foundation
import Testing
import TidingsJSON

@Suite struct JSONWriterTests {
    private func written(_ build: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        build(&writer)
        return writer.text
    }

    @Test func escapesAsJSONEncoderDoes() throws {
        let text = "quote \" backslash \\ slash / nl \n cr \r tab \t bs \u{8} ff \u{c} bell \u{7} nul \0 é 😀"
        let json = written { $0.value(text) }
        #expect(json == #""quote \" backslash \\ slash / nl \n cr \r tab \t bs \b ff \f bell \u0007 nul \u0000 é 😀""#)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        #expect(json == String(decoding: try encoder.encode(text), as: UTF8.self))
    }

    @Test func writesStructureAndScalars() {
        let json = written { writer in
            writer.beginObject()
            writer.key("a")
            writer.value(1)
            writer.key("dynamic \"key\"")
            writer.beginArray()
            writer.value(true)
            writer.null()
            writer.value(Double.nan)
            writer.value(-0.5)
            writer.value(Int64.min)
            writer.value(nil as String?)
            writer.endArray()
            writer.key("raw")
            writer.rawValue(#"{"x":[1]}"#)
            writer.key("id")
            writer.value(UUID(uuidString: "7D444840-9DC0-11D1-B245-5FFDCE74FAD2")!)
            writer.endObject()
        }
        #expect(
            json
                == #"{"a":1,"dynamic \"key\"":[true,null,null,-0.5,-9223372036854775808,null],"raw":{"x":[1]},"id":"7d444840-9dc0-11d1-b245-5ffdce74fad2"}"#
        )
    }

    /// Whatever the string, what is written reads back as the same string.
    @Test func everyStringReadsBack() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let scalars = (0..<Int.random(in: 0..<40, using: &generator)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0...0x2FFFF, using: &generator))
            }
            var string = ""
            string.unicodeScalars.append(contentsOf: scalars)
            let json = written { $0.value(string) }
            let decoded = try JSONDecoder().decode(String.self, from: Data(json.utf8))
            #expect(decoded == string)
        }
    }
}
