import Foundation
import Testing
import TidingsKit
import TidingsTestSupport

/// `events()` against a fake stream server: reconnection, `Last-Event-ID`,
/// `retry:`, and the answers that end a stream.
@Suite struct EventStreamTests {
    static func stream(_ text: String) -> TestResponse {
        TestResponse(headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")], body: Array(text.utf8))
    }

    @Test func reconnectsWithLastEventIDAndHonoursRetry() async throws {
        let lastEventIDs = Shared<[String?]>([])
        let server = try TestOriginServer { request in
            let index = lastEventIDs.withLock { ids in
                ids.append(request.header("Last-Event-ID"))
                return ids.count
            }
            switch index {
            case 1:
                // CRLF line ends, a heartbeat comment, a two-line data field.
                return Self.stream(
                    "retry: 20\r\n\r\n: heartbeat\r\nid: 41\r\nevent: badge.updated\r\ndata: {\"type\":\"badge.updated\",\r\ndata: \"data\":{\"count\":4}}\r\n\r\n"
                )
            case 2:
                return Self.stream("id: 42\nevent: watch.changed\ndata: {\"type\":\"watch.changed\",\"data\":{\"change_id\":\"c-42\"}}\n\n")
            case 3:
                // Dropped before the message ended: it never happened.
                return Self.stream("id: 43\nevent: watch.changed\ndata: {}\n")
            case 4:
                // Opened, then dropped, asking for a minute before the next try.
                return Self.stream("retry: 60000\n: nothing new\n\n")
            default:
                return .hang
            }
        }
        defer { server.stop() }
        let client = TidingsClient(baseURL: URL(string: server.baseURL)!, apiKey: "tdg_test")
        let collector = EventCollector(client.events(types: [.badgeUpdated, .watchChanged], after: "40"))
        defer { collector.cancel() }

        #expect(try await eventually(timeout: .seconds(30)) { lastEventIDs.value.count >= 4 })
        #expect(Array(lastEventIDs.value.prefix(4)) == ["40", "41", "42", "42"])
        #expect(collector.events.map(\.id) == ["41", "42"])
        #expect(collector.events.first?.badgeCount == 4)
        #expect(collector.changeIDs == ["c-42"])
        // The fourth connection asked for a minute: no fifth one comes
        // within 3 s, where the 1 s default would have reconnected. (Load
        // on the machine can only make a reconnection later, never sooner.)
        // A negative check, so a fixed wait.
        try await Task.sleep(for: .seconds(3))
        #expect(lastEventIDs.value.count == 4, "\(lastEventIDs.value)")

        collector.cancel()
        await collector.finished()
        #expect(collector.end == "finished")
    }

    @Test func anEmptyIDResetsThePositionAndSendsNoHeader() async throws {
        let lastEventIDs = Shared<[String?]>([])
        let server = try TestOriginServer { request in
            let count = lastEventIDs.withLock { ids in
                ids.append(request.header("Last-Event-ID"))
                return ids.count
            }
            return count == 1 ? Self.stream("retry: 20\n\nid: 5\ndata: {}\n\nid\n\n") : .hang
        }
        defer { server.stop() }
        let collector = EventCollector(TidingsClient(baseURL: URL(string: server.baseURL)!, apiKey: "tdg_test").events(after: "3"))
        defer { collector.cancel() }
        #expect(try await eventually(timeout: .seconds(10)) { lastEventIDs.value.count == 2 })
        #expect(lastEventIDs.value == ["3", nil])
        #expect(collector.events.map(\.id) == ["5"])
    }

    @Test func aRevokedKeyEndsTheStreamWithTheProblem() async throws {
        let server = try TestOriginServer { _ in
            FakeFeedServer.problem(401, type: "about:blank", title: "Unauthorized", extra: ["detail": "The API key is not valid."])
        }
        defer { server.stop() }
        let collector = EventCollector(TidingsClient(baseURL: URL(string: server.baseURL)!, apiKey: "tdg_revoked").events())
        #expect(try await eventually(timeout: .seconds(10)) { collector.end != nil })
        #expect(collector.end?.hasPrefix("401 Unauthorized: The API key is not valid.") == true, "\(collector.end ?? "-")")
        #expect(server.receivedRequests == 1)
    }

    @Test func aBusyServerIsAskedAgainAfterItsRetryAfter() async throws {
        let times = Shared<[ContinuousClock.Instant]>([])
        let server = try TestOriginServer { _ in
            let count = times.withLock { times in
                times.append(.now)
                return times.count
            }
            if count == 1 {
                return FakeFeedServer.problem(
                    429, type: "about:blank", title: "Too Many Requests", headers: [("Retry-After", "2")],
                    extra: ["limit": "streams_per_user"])
            }
            return Self.stream("retry: 3000\n\nid: 7\nevent: badge.updated\ndata: {\"data\":{\"count\":1}}\n\n")
        }
        defer { server.stop() }
        let collector = EventCollector(TidingsClient(baseURL: URL(string: server.baseURL)!, apiKey: "tdg_test").events())
        defer { collector.cancel() }
        #expect(try await eventually(timeout: .seconds(20)) { collector.events.count == 1 })
        let arrivals = times.value
        #expect(arrivals.count >= 2 && arrivals[1] - arrivals[0] >= .seconds(2))
        #expect(collector.end == nil)
    }

    @Test func anAnswerThatIsNotAStreamEndsIt() async throws {
        let server = try TestOriginServer { _ in HostileServerTests.json("{}") }
        defer { server.stop() }
        let collector = EventCollector(TidingsClient(baseURL: URL(string: server.baseURL)!, apiKey: "tdg_test").events())
        #expect(try await eventually(timeout: .seconds(10)) { collector.end != nil })
        #expect(collector.end?.contains("not text/event-stream") == true)
    }

    @Test func anEndlessLineEndsTheStreamInsteadOfFillingMemory() async throws {
        let server = try TestOriginServer { _ in
            TestResponse(
                headers: [("Content-Type", "text/event-stream")], body: Array(repeating: UInt8(ascii: "x"), count: 3 << 20), chunked: true)
        }
        defer { server.stop() }
        let collector = EventCollector(TidingsClient(baseURL: URL(string: server.baseURL)!, apiKey: "tdg_test").events())
        #expect(try await eventually(timeout: .seconds(20)) { collector.end != nil })
        #expect(collector.end?.contains("larger than 1 MiB") == true, "\(collector.end ?? "-")")
    }
}
