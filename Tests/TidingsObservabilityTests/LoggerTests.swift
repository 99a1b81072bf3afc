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
        #expect(UTCTimestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(UTCTimestamp.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
        #expect(UTCTimestamp.format(Date(timeIntervalSince1970: 4_107_542_399.999)) == "2100-02-28T23:59:59.999Z")
        #expect(UTCTimestamp.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
    }

    @Test func timestampMatchesFoundationAcrossYears() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for step in stride(from: 0.0, to: 4_000_000_000, by: 86_400 * 37 + 3_725.5) {
            let date = Date(timeIntervalSince1970: step)
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!)
            #expect(UTCTimestamp.format(date).hasPrefix(expected))
        }
    }
}
