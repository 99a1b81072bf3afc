import Foundation
import Testing
import TidingsKit
import TidingsTestSupport

/// Answers no Tidings sends, from a fake server: each is a typed error,
/// never a crash or a hang.
@Suite struct HostileServerTests {
    static func client(answering response: TestResponse, maximumResponseSize: Int = 1 << 20) throws -> (TidingsClient, TestOriginServer) {
        let server = try TestOriginServer { _ in response }
        return (TidingsClient(baseURL: URL(string: server.baseURL)!, apiKey: "tdg_test", maximumResponseSize: maximumResponseSize), server)
    }

    static func json(_ text: String, status: Int = 200) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
    }

    @Test(arguments: [
        (#"{"count": 3, "sequence": 1, "updated_at": "2026-12-04T10:00:00Z""#, "body"),
        (#"{"count": "3", "sequence": 1, "updated_at": "2026-12-04T10:00:00Z"}"#, "count"),
        (#"{"count": 3, "sequence": 1, "updated_at": "yesterday"}"#, "updated_at"),
        (#"{"count": 3, "sequence": 1}"#, "updated_at"),
        (#"[1, 2, 3]"#, "body"),
        ("<html>not json</html>", "body"),
        ("", "body"),
    ])
    func malformedBodiesAreInvalidResponsesNamingTheField(body: String, field: String) async throws {
        let (client, server) = try Self.client(answering: Self.json(body))
        defer { server.stop() }
        await #expect {
            try await client.badge()
        } throws: { error in
            guard case .invalidResponse(let status, let reason) = error as? TidingsError else { return false }
            return status == 200 && reason.hasPrefix(field)
        }
    }

    @Test func aWrongTypeDeepInAFeedNamesItsPath() async throws {
        let body = #"{"data": [{"id": 7}], "next_cursor": "1", "badge": {"count": 0, "sequence": 0, "updated_at": "2026-12-04T10:00:00Z"}}"#
        let (client, server) = try Self.client(answering: Self.json(body))
        defer { server.stop() }
        let store = FileCursorStore(url: FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)"))
        await #expect {
            try await SyncEngine(client: client, store: store).sync()
        } throws: { error in
            guard case .invalidResponse(_, let reason) = error as? TidingsError else { return false }
            return reason.hasPrefix("data.[0].id")
        }
        #expect(try await store.loadCursor() == nil, "nothing saved from a bad answer")
    }

    @Test(arguments: [false, true])
    func aHugeBodyIsRefusedAsItArrives(chunked: Bool) async throws {
        let huge = TestResponse(
            headers: [("Content-Type", "application/json")], body: Array(repeating: UInt8(ascii: " "), count: 32 << 20), chunked: chunked)
        let (client, server) = try Self.client(answering: huge)
        defer { server.stop() }
        await #expect {
            try await client.badge()
        } throws: { error in
            guard case .responseTooLarge(let limit) = error as? TidingsError else { return false }
            return limit == 1 << 20
        }
    }

    @Test func aRateLimitCarriesRetryAfterAndTheLimit() async throws {
        let answer = FakeFeedServer.problem(
            429, type: TidingsProblem.rateLimitedType, title: "Too Many Requests",
            headers: [("Retry-After", "7"), ("X-Request-Id", "req-1")],
            extra: ["detail": "Too many checks of this watch.", "limit": "checks_per_watch", "retry_after": 7])
        let (client, server) = try Self.client(answering: answer)
        defer { server.stop() }
        await #expect {
            try await client.checkWatch(id: "00000000-0000-4000-8000-000000000001")
        } throws: { error in
            guard let problem = (error as? TidingsError)?.problem else { return false }
            return problem.status == 429 && problem.retryAfter == .seconds(7) && problem.limit == "checks_per_watch"
                && problem.type == TidingsProblem.rateLimitedType && problem.requestID == "req-1"
                && problem.detail == "Too many checks of this watch." && (error as? TidingsError)?.isTransient == true
        }
    }

    @Test func anErrorPageThatIsNotAProblemStillGivesItsStatus() async throws {
        let page = TestResponse(
            status: 502, headers: [("Content-Type", "text/html"), ("Retry-After", "Fri, 04 Dec 2099 10:00:00 GMT")],
            body: Array("<h1>Bad Gateway</h1>".utf8))
        let (client, server) = try Self.client(answering: page)
        defer { server.stop() }
        await #expect {
            try await client.readAll()
        } throws: { error in
            guard let problem = (error as? TidingsError)?.problem else { return false }
            return problem.status == 502 && problem.type == "about:blank" && !problem.title.isEmpty && problem.detail == nil
                && (problem.retryAfter ?? .zero) > .seconds(86_400)
        }
    }

    @Test func aServerThatIsNotThereIsATransportError() async throws {
        let server = try TestOriginServer { _ in TestResponse() }
        let url = URL(string: server.baseURL)!
        server.stop()
        let client = TidingsClient(baseURL: url, apiKey: "tdg_test")
        await #expect {
            try await client.badge()
        } throws: { error in
            guard case .transport = error as? TidingsError else { return false }
            return true
        }
    }

    @Test func idsCannotReachAnotherRoute() async throws {
        let paths = Shared<[String]>([])
        let server = try TestOriginServer { request in
            paths.withLock { $0.append(request.path) }
            return Self.json("{}", status: 404)
        }
        defer { server.stop() }
        let client = TidingsClient(baseURL: URL(string: server.baseURL)!, apiKey: "tdg_test")
        _ = try? await client.watch(id: "../badge/read-all?x=1")
        #expect(paths.value == ["/v1/watches/%2E%2E%2Fbadge%2Fread-all%3Fx%3D1"])
    }
}
