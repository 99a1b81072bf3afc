import Foundation
import Testing
import TidingsObservability

@Suite struct LoggerTests {
    @Test func writesOneJSONObjectPerLineWithMetadata() throws {
        let sink = CapturingLogSink()
        var logger = Logger(label: "tidings.test", logLevel: .info, sink: sink)
        logger[metadataKey: "request.id"] = "abc"
        logger.info("hello \"world\"\nnext", metadata: ["watch.id": "42"])
        logger.debug("filtered out")

        #expect(sink.lines.count == 1)
        let line = try #require(sink.lines.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "info")
        #expect(object["logger"] as? String == "tidings.test")
        #expect(object["msg"] as? String == "hello \"world\"\nnext")
        #expect(object["request.id"] as? String == "abc")
        #expect(object["watch.id"] as? String == "42")
        let timestamp = try #require(object["ts"] as? String)
        #expect(timestamp.hasSuffix("Z") && timestamp.count == 24)
    }

    @Test func escapesControlCharactersAsJSON() throws {
        let sink = CapturingLogSink()
        Logger(label: "t", sink: sink).error("bell\u{07}tab\tback\\slash", metadata: ["k\"": "\u{1f}"])
        let line = try #require(sink.lines.first)
        #expect(line.contains(#""msg":"bell\u0007tab\tback\\slash""#))
        #expect(line.contains(#""k\"":"\u001f""#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["msg"] as? String == "bell\u{07}tab\tback\\slash")
    }

    @Test func levelsAreOrdered() {
        #expect(LogLevel.trace < .debug && LogLevel.warning < .error && LogLevel.error < .critical)
        #expect(LogLevel(rawValue: "notice") == .notice)
    }

    @Test func timestampFormat() {
        #expect(UTCTimestamp.format(Date(timeIntervalSince1970: 1614265330.25)) == "2021-02-25T15:02:10.250Z")
    }
}
