import Foundation
import TidingsTestSupport

/// Mutable state a test origin's handler reads (the current page, how many
/// requests to fail) and records (requests seen, in flight), behind a lock.
final class OriginScript: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: String] = [:]
    private var log: [(path: String, at: ContinuousClock.Instant, headers: [(name: String, value: String)])] = []
    private var methodLog: [String] = []
    private var active = 0
    private(set) var maximumActive = 0

    subscript(key: String) -> String? {
        get { lock.withLock { values[key] } }
        set { lock.withLock { values[key] = newValue } }
    }

    func record(_ request: TestRequest) {
        lock.withLock {
            log.append((request.path, .now, request.headers))
            methodLog.append(request.method)
        }
    }

    /// The method of every request, in order.
    var methods: [String] {
        lock.withLock { methodLog }
    }

    var requests: [(path: String, at: ContinuousClock.Instant, headers: [(name: String, value: String)])] {
        lock.withLock { log }
    }

    func requestCount(path: String) -> Int {
        lock.withLock { log.filter { $0.path == path }.count }
    }

    /// A loopback origin that records every request here, then answers
    /// with `route`.
    func origin(_ route: @escaping @Sendable (TestRequest) -> TestResponse) throws -> TestOriginServer {
        try TestOriginServer { [self] request in
            record(request)
            return route(request)
        }
    }

    /// Counts the caller as in flight while `body` runs.
    func inFlight<T>(_ body: () -> T) -> T {
        lock.withLock {
            active += 1
            maximumActive = max(maximumActive, active)
        }
        defer { lock.withLock { active -= 1 } }
        return body()
    }
}
