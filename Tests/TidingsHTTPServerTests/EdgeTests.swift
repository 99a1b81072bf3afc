import Testing
import TidingsHTTPServer
import TidingsObservability
import TidingsTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The response deadline and the connection limit (docs/decisions/0045):
/// a client that does not take its response is cut, and at the limit a
/// newcomer takes the place of an idle connection of the client holding
/// the most. Real server over loopback; other loopback addresses stand for
/// other clients.
@Suite struct EdgeTests {
    /// Far more than the kernel's socket buffers take while nobody reads.
    private static let largeBody = [UInt8](repeating: UInt8(ascii: "x"), count: 48 << 20)

    private static func makeRouter() -> Router {
        var router = Router()
        router.get("/ping") { _, _ in .text("pong") }
        router.get("/large") { _, _ in HTTPResponse(body: largeBody) }
        return router
    }

    @Test(arguments: [HTTPServerThreading.threadPerConnection, .suspending(pollingThreads: 2, handlerThreads: 2)])
    func aResponseTheClientDoesNotTakeIsCutAtItsDeadline(threading: HTTPServerThreading) throws {
        var configuration = HTTPServerConfiguration()
        configuration.threading = threading
        configuration.responseTimeout = .seconds(1)
        configuration.connectionIdleTimeout = .seconds(20)
        let server = try TestServer(configuration: configuration, router: Self.makeRouter())

        let connection = try server.connect(receiveTimeoutSeconds: 20)
        let started = ContinuousClock.now
        try connection.send("GET /large HTTP/1.1\r\nHost: x\r\nX-Request-Id: slow-reader-1\r\n\r\n")
        // Reads nothing while the deadline passes (the idle timeout is far
        // off): a fixed wait, as the client does nothing to wait for.
        usleep(2_500_000)
        #expect(throws: RawHTTPConnection.Failure.self, "the body ends short of its length") {
            try connection.readResponse()
        }
        #expect(ContinuousClock.now - started < .seconds(15), "cut by the response deadline, not the idle timeout")

        let timeouts = server.metrics.counter("tidings_http_response_timeouts_total", help: "")
        #expect(eventuallyBlocking(timeout: .seconds(10)) { timeouts.value() == 1 })
        let line = try #require(server.logLine(containing: "\"termination\":\"response_timeout\""))
        #expect(line.contains("\"request.id\":\"slow-reader-1\""))
        #expect(line.contains("\"http.status\":\"200\""))
        let cut = try #require(server.logLine(containing: "http response not taken by the client within its deadline"))
        #expect(cut.contains("\"request.id\":\"slow-reader-1\""))

        // A client that takes its response in time is not cut.
        #expect(try server.request("GET", "/large").body.count == Self.largeBody.count)
        #expect(timeouts.value() == 1)
    }

    @Test(arguments: [HTTPServerThreading.threadPerConnection, .suspending(pollingThreads: 2, handlerThreads: 2)])
    func atTheLimitANewcomerTakesTheIdleConnectionOfTheClientHoldingTheMost(threading: HTTPServerThreading) throws {
        var configuration = HTTPServerConfiguration()
        configuration.threading = threading
        configuration.connectionLimit = 8
        configuration.connectionsPerClient = 8
        let server = try TestServer(configuration: configuration, router: Self.makeRouter())
        let shed = server.metrics.counter("tidings_http_connections_shed_total", help: "")
        let refused = server.metrics.counter("tidings_http_connections_refused_total", help: "")

        // 127.0.0.3 fills the server: six connections that never send a
        // request, then two keep-alive connections that have just been served.
        let idle = try (0..<6).map { _ in try server.connect(from: "127.0.0.3") }
        let busy = try (0..<2).map { _ in try server.connect(from: "127.0.0.3") }
        for connection in busy { #expect(try connection.request("GET", "/ping").text == "pong") }
        #expect(eventuallyBlocking(timeout: .seconds(10)) { server.metrics.gauge("tidings_http_connections_open", help: "").value() == 8 })

        // A newcomer is served: one of the hog's connections makes room.
        let newcomer = try server.connect(from: "127.0.0.2")
        #expect(try newcomer.request("GET", "/ping").text == "pong")
        #expect(eventuallyBlocking(timeout: .seconds(10)) { shed.value() == 1 })
        // The one shed waited longest without a request: the first idle one.
        #expect(eventuallyBlocking(timeout: .seconds(10)) { idle[0].isClosedByServer() })
        #expect(idle.dropFirst().allSatisfy { !$0.isClosedByServer() })

        // The hog holds 7 and the newcomer 1: the hog gets no more, and the
        // newcomer's second connection sheds another of the hog's.
        let greedy = try server.connect(from: "127.0.0.3")
        #expect(throws: RawHTTPConnection.Failure.self) { try greedy.request("GET", "/ping") }
        #expect(refused.value() == 1)
        #expect(try server.connect(from: "127.0.0.2").request("GET", "/ping").text == "pong")
        #expect(eventuallyBlocking(timeout: .seconds(10)) { shed.value() == 2 })
        for connection in busy { #expect(try connection.request("GET", "/ping").text == "pong") }
    }
}
