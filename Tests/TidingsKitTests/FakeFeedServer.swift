import Foundation
import TidingsTestSupport

/// A fake `GET /v1/changes` with scripted changes at cursors 1...n, for
/// what a real server cannot be made to do on cue: fail a given page,
/// answer slowly, forget a cursor.
final class FakeFeedServer: Sendable {
    struct State: Sendable {
        var changes = 0
        /// Requests answered 503 before the next one succeeds.
        var failNext = 0
        /// Only requests after the first page fail (a sync broken part way).
        var failAfterFirstPage = false
        /// Cursors answered 410 (past retention).
        var goneCursors: Set<String> = []
        var requests: [String] = []
        var delay: TimeInterval = 0
    }

    let state: Shared<State>
    let server: TestOriginServer

    init() throws {
        let state = Shared(State())
        self.state = state
        server = try TestOriginServer { request in
            Self.answer(request, state: state)
        }
    }

    var baseURL: URL { URL(string: server.baseURL)! }

    deinit {
        server.stop()
    }

    static func changeID(_ cursor: Int) -> String {
        String(format: "00000000-0000-4000-8000-%012d", cursor)
    }

    private static func answer(_ request: TestRequest, state: Shared<State>) -> TestResponse {
        let components = URLComponents(string: request.path)
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let snapshot = state.withLock { state -> State in
            state.requests.append(request.path)
            return state
        }
        // A slow server on purpose: the delay a test set is what it tests.
        if snapshot.delay > 0 { Thread.sleep(forTimeInterval: snapshot.delay) }
        guard components?.path == "/v1/changes" else { return TestResponse(status: 404) }
        let after = query["after"]
        if snapshot.failNext > 0, !snapshot.failAfterFirstPage || after != nil {
            state.withLock { $0.failNext -= 1 }
            return problem(503, type: "about:blank", title: "Service Unavailable")
        }
        if let after, snapshot.goneCursors.contains(after) {
            return problem(410, type: "urn:tidings:problem:resync", title: "Gone")
        }
        let start = Int(after ?? "0") ?? 0
        let limit = Int(query["limit"] ?? "100") ?? 100
        let cursors = Array((start + 1)...max(start + 1, snapshot.changes)).filter { $0 <= snapshot.changes }.prefix(limit)
        let items = cursors.map { cursor -> [String: Any] in
            [
                "id": changeID(cursor), "watch_id": "11111111-1111-4111-8111-111111111111", "watch_name": "page",
                "watch_url": "https://example.com/", "cursor": String(cursor), "detected_at": "2026-12-04T10:00:00.123Z",
                "previous_hash": String(repeating: "a", count: 64), "new_hash": String(repeating: "b", count: 64),
                "http_status": 200, "content_length": 10, "diff": "+v\(cursor)", "snapshot_truncated": false,
                "read": false, "read_at": NSNull(),
            ]
        }
        let next = cursors.count == limit ? cursors.last! : max(start, snapshot.changes)
        let body: [String: Any] = [
            "data": items, "next_cursor": String(next),
            "badge": ["count": snapshot.changes, "sequence": snapshot.changes, "updated_at": "2026-12-04T10:00:00Z"],
        ]
        return TestResponse(headers: [("Content-Type", "application/json")], body: Array(try! JSONSerialization.data(withJSONObject: body)))
    }

    static func problem(
        _ status: Int, type: String, title: String, headers: [(name: String, value: String)] = [], extra: [String: Any] = [:]
    ) -> TestResponse {
        var body: [String: Any] = ["type": type, "title": title, "status": status]
        body.merge(extra) { $1 }
        return TestResponse(
            status: status, headers: [("Content-Type", "application/problem+json")] + headers,
            body: Array(try! JSONSerialization.data(withJSONObject: body)))
    }
}
