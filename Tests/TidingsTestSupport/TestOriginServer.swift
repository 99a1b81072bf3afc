package import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A small real HTTP/1.1 origin on 127.0.0.1 with keep-alive and one thread
/// per connection. Each test scripts its routes through `handler` and reads
/// back how many connections and requests arrived.
///
/// `@unchecked Sendable`: mutable state lives behind `condition`; the
/// listening descriptor is written once in `init`.
package final class TestOriginServer: @unchecked Sendable {
    package typealias Handler = @Sendable (TestRequest) -> TestResponse

    package let port: UInt16
    private let listener: Int32
    private let handler: Handler
    private let condition = NSCondition()
    private var openConnections: Set<Int32> = []
    private var accepted = 0
    private var requests = 0
    private var stopped = false

    package init(handler: @escaping Handler) throws {
        self.handler = handler
        listener = try LoopbackSocket.listen(backlog: 128)
        port = try LoopbackSocket.port(of: listener)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    package var baseURL: String { "http://127.0.0.1:\(port)" }

    package var acceptedConnections: Int { condition.withLock { accepted } }

    package var receivedRequests: Int { condition.withLock { requests } }

    /// Waits until at least `count` requests arrived; false on timeout.
    private func waitForRequests(_ count: Int, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return condition.withLock {
            while requests < count {
                if !condition.wait(until: deadline) { return requests >= count }
            }
            return true
        }
    }

    /// `waitForRequests` on its own thread, so waiting never blocks a thread
    /// of the cooperative pool (the client's tasks need those to submit).
    package func requestsArrived(_ count: Int, timeout: TimeInterval = 10) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.waitForRequests(count, timeout: timeout)) }.start()
        }
    }

    /// Closes the listener and every connection; hanging routes return.
    package func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
            // Under the lock: a connection's thread takes its descriptor
            // out of the set under it before closing it, so each one here
            // is still open. Shut down after that close, the number could
            // already be another test's socket (seen in CI: a client
            // test's connection refused and an empty reply).
            for connection in openConnections {
                Glibc.shutdown(connection, Int32(SHUT_RDWR))
            }
        }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit {
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let isStopped = condition.withLock {
                accepted += 1
                if !stopped { openConnections.insert(connection) }
                return stopped
            }
            if isStopped {
                close(connection)
                return
            }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer {
            condition.withLock { _ = openConnections.remove(connection) }
            close(connection)
        }
        var reader = HTTPRequestReader(descriptor: connection)
        while let request = reader.next() {
            condition.withLock {
                requests += 1
                condition.broadcast()
            }
            let response = handler(request)
            if response.hangs {
                waitUntilStopped()
                return
            }
            guard HTTPResponseWriter.write(response, to: connection) else { return }
            if request.header("Connection")?.lowercased() == "close" { return }
        }
    }

    private func waitUntilStopped() {
        let deadline = Date(timeIntervalSinceNow: 30)
        condition.withLock {
            while !stopped && condition.wait(until: deadline) {}
        }
    }
}
