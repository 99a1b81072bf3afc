import Testing

@testable import TidingsKit

@Suite struct ServerSentEventParserTests {
    /// Feeds `text` one byte at a time, so every split of a line end or a
    /// field is exercised.
    static func bytewise(_ text: String, parser: inout ServerSentEventParser) throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in text.utf8 { events += try parser.feed([byte]) }
        return events
    }

    @Test func fieldsCommentsAndLineEndsFollowTheSpecification() throws {
        var parser = ServerSentEventParser()
        let text = "retry: 1500\r\n\r\n:comment\ndata:no space\r\rid: 9\nevent: x\ndata: a\ndata:  b\n\nid\ndata: after empty id\n\n"
        let events = try Self.bytewise(text, parser: &parser)
        #expect(
            events == [
                ServerSentEvent(id: nil, event: "message", data: "no space"),
                ServerSentEvent(id: "9", event: "x", data: "a\n b"),
                ServerSentEvent(id: "", event: "message", data: "after empty id"),
            ])
        #expect(parser.retryMilliseconds == 1500)
        #expect(parser.lastEventID == "")
    }

    @Test func anIDWithoutDataStillMovesTheResumePosition() throws {
        var parser = ServerSentEventParser(lastEventID: "3")
        #expect(try parser.feed(Array("id: 5\n\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "5")
        #expect(try parser.feed(Array("id: 6\u{0}\n\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "5", "an id with NUL is ignored")
    }

    @Test func aBadRetryIsIgnored() throws {
        var parser = ServerSentEventParser()
        _ = try parser.feed(Array("retry: 10x\nretry: -5\nretry: 99999999999999\n\n".utf8))
        #expect(parser.retryMilliseconds == nil)
    }

    @Test func oversizedLinesAndMessagesAreRefused() throws {
        var parser = ServerSentEventParser(maximumMessageSize: 16)
        #expect(throws: ServerSentEventParser.MessageTooLarge.self) { try parser.feed(Array(String(repeating: "a", count: 17).utf8)) }
        var joined = ServerSentEventParser(maximumMessageSize: 16)
        #expect(throws: ServerSentEventParser.MessageTooLarge.self) {
            try joined.feed(Array("data: 0123456789\ndata: 0123456789\n".utf8))
        }
    }
}
