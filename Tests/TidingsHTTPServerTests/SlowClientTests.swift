import Testing
import TidingsHTTPServer
import TidingsIP
import TidingsObservability
import TidingsTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Clients that hold connections or send requests slowly cannot take the
/// server from others. Every test runs a real server over loopback; a
/// second loopback address (127.0.0.2) stands for a different client.
/// Timing assertions have wide margins and bound outcomes (answered or
/// not, closed before the idle timeout could have done it), not durations.
@Suite struct SlowClientTests {
    private static func makeRouter() -> Router {
        var router = Router()
        router.get("/ping") { _, _ in .text("pong") }
        router.post("/echo") { request, _ in HTTPResponse(body: request.body) }
        router.get("/whoami") { request, _ in .text(request.remoteAddress ?? "unknown") }
        return router
    }

    private static let partialUpload = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab"

    @Test(arguments: [HTTPServerThreading.threadPerConnection, .pool(threads: 2), .suspending(pollingThreads: 2, handlerThreads: 2)])
    func aClientHoldingManyPartialRequestsGetsOnlyItsShare(threading: HTTPServerThreading) throws {
        var configuration = HTTPServerConfiguration()
        configuration.threading = threading
        configuration.connectionLimit = 32
        configuration.connectionsPerClient = 4
        let server = try TestServer(configuration: configuration, router: Self.makeRouter())

        // Twelve half-sent uploads from 127.0.0.1: four are kept, eight
        // closed unanswered as they are accepted.
        var greedy: [RawHTTPConnection] = []
        for _ in 0..<12 {
            let connection = try server.connect(from: "127.0.0.1")
            try? connection.send(Self.partialUpload)
            greedy.append(connection)
        }
        let refused = server.metrics.counter("tidings_http_connections_refused_total", help: "")
        #expect(eventuallyBlocking(timeout: .seconds(10)) { refused.value() == 8 && greedy.filter { $0.isClosedByServer() }.count == 8 })
        var held = greedy.filter { !$0.isClosedByServer() }
        #expect(held.count == 4)

        // Meanwhile another client is served, on fresh connections each time.
        for _ in 0..<6 {
            #expect(try server.connect(from: "127.0.0.2").request("GET", "/ping").text == "pong")
        }
        #expect(try server.connect(from: "127.0.0.2").request("GET", "/whoami").text == "127.0.0.2")

        // The four kept are alive: they finish their uploads.
        for connection in held {
            try connection.send("cde")
            #expect(try connection.readResponse().text == "abcde")
        }
        // Still four open: a fifth is refused. Once they go, 127.0.0.1 may
        // connect again.
        let fifth = try server.connect(from: "127.0.0.1")
        #expect(throws: RawHTTPConnection.Failure.self) { try fifth.request("GET", "/ping") }
        greedy.removeAll()
        held.removeAll()
        #expect(eventuallyBlocking(timeout: .seconds(10)) { (try? server.request("GET", "/ping"))?.status == 200 })
    }

    @Test func aTrustedProxyIsNotCappedButOtherClientsAre() throws {
        var configuration = HTTPServerConfiguration()
        configuration.connectionsPerClient = 2
        configuration.trustedProxies = TrustedProxies([try #require(IPNetwork("127.0.0.1"))])
        let server = try TestServer(configuration: configuration, router: Self.makeRouter())

        let proxied = try (0..<6).map { _ in try server.connect(from: "127.0.0.1") }
        let direct = try (0..<3).map { _ in try server.connect(from: "127.0.0.2") }
        for connection in proxied + direct { try? connection.send(Self.partialUpload) }

        // The third direct connection is over the cap of 2...
        #expect(eventuallyBlocking(timeout: .seconds(10)) { direct.filter { $0.isClosedByServer() }.count == 1 })
        // ...while all six from the proxy are served.
        for connection in proxied {
            try connection.send("cde")
            #expect(try connection.readResponse().text == "abcde")
        }
    }

    enum SlowPart: String, CaseIterable, CustomTestStringConvertible {
        case head, body
        var testDescription: String { rawValue }
    }

    /// A byte every quarter second keeps the idle timeout (10 s) from ever
    /// firing; the 2 s request deadline cuts the request off with a 408.
    @Test(
        arguments: [HTTPServerThreading.threadPerConnection, .pool(threads: 2), .suspending(pollingThreads: 2, handlerThreads: 2)],
        SlowPart.allCases)
    func aRequestTricklingInPastItsDeadlineIsCutOff(threading: HTTPServerThreading, part: SlowPart) throws {
        var configuration = HTTPServerConfiguration()
        configuration.threading = threading
        configuration.requestTimeout = .seconds(2)
        configuration.connectionIdleTimeout = .seconds(10)
        let server = try TestServer(configuration: configuration, router: Self.makeRouter())

        let started = ContinuousClock.now
        let connection = try server.connect()
        switch part {
        case .head: try connection.send("GET /ping HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        case .body: try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
        }
        connection.setReceiveTimeout(milliseconds: 250)
        var response: RawHTTPResponse?
        while response == nil, ContinuousClock.now - started < .seconds(20) {
            guard (try? connection.send("a")) != nil else { break }
            response = try? connection.readResponse()
        }
        connection.setReceiveTimeout(seconds: 5)
        if response == nil { response = try? connection.readResponse() }
        let elapsed = ContinuousClock.now - started

        let answer = try #require(response)
        #expect(answer.status == 408)
        #expect(answer.problem?.status == 408)
        #expect(answer.headers["Content-Type"] == "application/problem+json")
        #expect(answer.headers["Connection"]?.lowercased() == "close")
        #expect(elapsed >= .milliseconds(1900))
        #expect(elapsed < .seconds(10), "cut by the request deadline, not the idle timeout")
        #expect(connection.waitForClose())

        let requestID = try #require(answer.headers["X-Request-Id"])
        #expect(answer.problem?.requestID == requestID)
        let line = try #require(server.logLine(containing: "\"termination\":\"request_timeout\""))
        #expect(line.contains("\"http.status\":\"408\""))
        #expect(line.contains("\"request.id\":\"\(requestID)\""))
        // Counted by the watchdog after it shut the socket, unordered with
        // the log line above.
        let timeouts = server.metrics.counter("tidings_http_request_timeouts_total", help: "")
        #expect(eventuallyBlocking(timeout: .seconds(10)) { timeouts.value() == 1 })
    }

    /// A connection that never sends a request is closed at the request
    /// deadline without an answer (browsers open spare connections).
    @Test func aSilentNewConnectionIsClosedUnanswered() throws {
        var configuration = HTTPServerConfiguration()
        configuration.requestTimeout = .seconds(1)
        configuration.connectionIdleTimeout = .seconds(10)
        let server = try TestServer(configuration: configuration, router: Self.makeRouter())
        let started = ContinuousClock.now
        let connection = try server.connect(receiveTimeoutSeconds: 20)
        #expect(throws: RawHTTPConnection.Failure.self) { try connection.readResponse() }
        #expect(ContinuousClock.now - started < .seconds(8), "closed by the request deadline, not the idle timeout")
    }

    /// Between requests a keep-alive connection answers to the idle timeout
    /// only: quiet for three request timeouts, it still serves the next
    /// request, and it is closed once idle for the idle timeout.
    @Test(arguments: [HTTPServerThreading.threadPerConnection, .pool(threads: 2), .suspending(pollingThreads: 2, handlerThreads: 2)])
    func anIdleKeepAliveConnectionFollowsTheIdleTimeout(threading: HTTPServerThreading) throws {
        var configuration = HTTPServerConfiguration()
        configuration.threading = threading
        configuration.requestTimeout = .seconds(1)
        configuration.connectionIdleTimeout = .seconds(5)
        let server = try TestServer(configuration: configuration, router: Self.makeRouter())
        let connection = try server.connect(receiveTimeoutSeconds: 20)

        #expect(try connection.request("GET", "/ping").text == "pong")
        usleep(3_000_000) // quiet for three request timeouts, the time under test
        #expect(try connection.request("GET", "/ping").text == "pong")
        let answered = ContinuousClock.now
        #expect(connection.waitForClose())
        #expect(ContinuousClock.now - answered >= .seconds(3), "closed by the idle timeout (5 s), not the request deadline (1 s)")
    }

    @Test func forwardedAddressesAreBelievedOnlyFromTrustedProxies() throws {
        var configuration = HTTPServerConfiguration()
        configuration.trustedProxies = TrustedProxies([try #require(IPNetwork("127.0.0.1/32"))])
        let server = try TestServer(configuration: configuration, router: Self.makeRouter())

        func whoami(from source: String, _ forwardedFor: [String]) throws -> String {
            try server.connect(from: source)
                .request("GET", "/whoami", headers: forwardedFor.map { ("X-Forwarded-For", $0) })
                .text
        }
        // From the proxy: the rightmost hop that is not a trusted proxy.
        #expect(try whoami(from: "127.0.0.1", ["198.51.100.1, 203.0.113.9"]) == "203.0.113.9")
        #expect(try whoami(from: "127.0.0.1", ["203.0.113.9, 127.0.0.1"]) == "203.0.113.9")
        #expect(try whoami(from: "127.0.0.1", ["198.51.100.1", "203.0.113.9"]) == "203.0.113.9")
        #expect(try whoami(from: "127.0.0.1", ["[2001:db8::7]:443"]) == "2001:db8::7")
        #expect(try whoami(from: "127.0.0.1", []) == "127.0.0.1")
        #expect(try whoami(from: "127.0.0.1", ["unknown"]) == "127.0.0.1")
        // From anyone else the header is the client's own claim.
        #expect(try whoami(from: "127.0.0.2", ["203.0.113.9"]) == "127.0.0.2")

        _ = try server.connect(from: "127.0.0.1")
            .request("GET", "/ping", headers: [("X-Forwarded-For", "192.0.2.44"), ("X-Request-Id", "forwarded-1")])
        let line = try #require(server.logLine(containing: "\"request.id\":\"forwarded-1\""))
        #expect(line.contains("\"client.address\":\"192.0.2.44\""))
        #expect(line.contains("\"network.peer.address\":\"127.0.0.1\""))
    }
}
