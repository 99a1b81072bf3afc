import Dispatch
import Testing
import TidingsHTTPServer
import TidingsObservability
import TidingsSynchronization
import TidingsTestSupport

@Suite struct ConnectionTests {
    /// With handler threads the answer is queued on a later access-handler
    /// call than the first, which keeps libmicrohttpd 0.9.75 on keep-alive.
    @Test(arguments: [HTTPServerThreading.threadPerConnection, .suspending(pollingThreads: 1, handlerThreads: 2)])
    func keepAliveServesSeveralRequestsOnOneConnection(threading: HTTPServerThreading) throws {
        var router = Router()
        router.post("/echo") { request, _ in HTTPResponse(body: request.body) }
        var configuration = HTTPServerConfiguration()
        configuration.threading = threading
        let server = try TestServer(configuration: configuration, router: router)
        let connection = try server.connect()
        let first = try connection.request("POST", "/echo", body: Array("one".utf8))
        let second = try connection.request("POST", "/echo", body: Array("two".utf8))
        #expect(first.text == "one")
        #expect(second.text == "two")
        #expect(first.headers["Connection"]?.lowercased() != "close")
        #expect(second.headers["Connection"]?.lowercased() != "close")
    }

    /// Another connection's request must not wait for a blocked handler when
    /// each connection has its own thread, nor when handlers run on a pool
    /// of their own (even with one polling thread); in a pool of one thread
    /// running handlers inline it must (which shows the test tells them
    /// apart). The order in which the handlers finish decides, not a clock:
    /// a 10 s read timeout only ends a failing run.
    @Test(arguments: [
        HTTPServerThreading.threadPerConnection, .pool(threads: 1), .suspending(pollingThreads: 1, handlerThreads: 2),
    ])
    func aBlockedHandlerHoldsUpOtherConnectionsOnlyInAPool(threading: HTTPServerThreading) throws {
        let blockedEntered = DispatchSemaphore(value: 0)
        let releaseBlocked = DispatchSemaphore(value: 0)
        let finished = AdaptiveMutex<[String]>([])
        var router = Router()
        router.get("/blocked") { _, _ in
            blockedEntered.signal()
            _ = releaseBlocked.wait(timeout: .now() + .seconds(10))
            finished.withLock { $0.append("blocked") }
            return .text("released")
        }
        router.get("/ping") { _, _ in
            finished.withLock { $0.append("ping") }
            return .text("pong")
        }
        var configuration = HTTPServerConfiguration()
        configuration.threading = threading
        let server = try TestServer(configuration: configuration, router: router)

        let blocked = BackgroundRequest(port: server.port, "GET", "/blocked")
        #expect(blockedEntered.wait(timeout: .now() + .seconds(10)) == .success)

        let other = try server.connect()
        switch threading {
        case .threadPerConnection, .suspending:
            // Answered while /blocked still waits for the release below.
            #expect(try other.request("GET", "/ping").text == "pong")
            #expect(finished.withLock { $0 } == ["ping"])
            releaseBlocked.signal()
        case .pool:
            // The only thread is inside /blocked: the request is not even
            // read until the handler returns. A second of silence cannot
            // prove that by itself; the order of `finished` does.
            other.setReceiveTimeout(seconds: 1)
            try other.send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(throws: RawHTTPConnection.Failure.self) { try other.readResponse() }
            releaseBlocked.signal()
            other.setReceiveTimeout(seconds: 10)
            #expect(try other.readResponse().text == "pong")
        }
        #expect(try blocked.response()?.text == "released")
        let order = threading == .pool(threads: 1) ? ["blocked", "ping"] : ["ping", "blocked"]
        #expect(finished.withLock { $0 } == order)
    }

    @Test(arguments: [HTTPServerThreading.threadPerConnection, .pool(threads: 2), .suspending(pollingThreads: 2, handlerThreads: 2)])
    func shutdownLetsAnInFlightRequestFinish(threading: HTTPServerThreading) throws {
        let handlerEntered = DispatchSemaphore(value: 0)
        let releaseHandler = DispatchSemaphore(value: 0)
        var router = Router()
        router.get("/slow") { _, _ in
            handlerEntered.signal()
            _ = releaseHandler.wait(timeout: .now() + .seconds(10))
            return .text("finished")
        }
        var configuration = HTTPServerConfiguration()
        configuration.threading = threading
        let server = try TestServer(configuration: configuration, router: router)
        let port = server.port

        let slow = BackgroundRequest(port: port, "GET", "/slow")
        #expect(handlerEntered.wait(timeout: .now() + .seconds(5)) == .success)

        let shutdownDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.server.stop()
            shutdownDone.signal()
        }
        // Once the server drains, new connections are closed unanswered
        // (a probe answered before that must not take the handler's
        // release, so it asks for another path)...
        #expect(eventuallyBlocking(timeout: .seconds(10)) { (try? RawHTTPConnection(port: port).request("GET", "/elsewhere")) == nil })
        // ...while the request already running still gets its answer.
        releaseHandler.signal()
        let response = try #require(try slow.response(timeout: .seconds(5)))
        #expect(response.status == 200)
        #expect(response.text == "finished")
        #expect(response.headers["Connection"]?.lowercased() == "close")
        #expect(shutdownDone.wait(timeout: .now() + .seconds(5)) == .success)
        #expect(server.server.boundPort == 0)
    }

    @Test func bindFailureIsReportedClearly() throws {
        let first = try TestServer(router: Router())
        var configuration = HTTPServerConfiguration()
        configuration.port = first.port
        let second = HTTPServer(
            configuration: configuration,
            responder: Router(),
            logger: Logger(label: "test", sink: CapturingLogSink()),
            metrics: MetricsRegistry()
        )
        let error = try #require(throws: HTTPServerError.self) { try second.start() }
        #expect(error.code == .startFailed)
        #expect(error.detail.contains("\(first.port)"))
    }

    /// The listen host is read by `IPAddress`, the one parser of literals:
    /// names, brackets, zone ids and text after a NUL byte are refused.
    @Test(arguments: ["example.com", "", "[::1]", "fe80::1%lo", "127.0.0.1\u{0}.example.com", "127.1", "127.0.0.1:80"])
    func aListenHostThatIsNoAddressLiteralIsRefused(host: String) throws {
        var configuration = HTTPServerConfiguration()
        configuration.host = host
        configuration.port = 0
        let server = HTTPServer(
            configuration: configuration,
            responder: Router(),
            logger: Logger(label: "test", sink: CapturingLogSink()),
            metrics: MetricsRegistry()
        )
        let error = try #require(throws: HTTPServerError.self) { try server.start() }
        #expect(error.code == .invalidHost)
    }

    @Test func aPoolWithoutThreadsIsRefused() throws {
        var configuration = HTTPServerConfiguration()
        configuration.threading = .pool(threads: 0)
        let server = HTTPServer(
            configuration: configuration,
            responder: Router(),
            logger: Logger(label: "test", sink: CapturingLogSink()),
            metrics: MetricsRegistry()
        )
        let error = try #require(throws: HTTPServerError.self) { try server.start() }
        #expect(error.code == .invalidConfiguration)
    }

    @Test func shutdownIsIdempotent() throws {
        let server = try TestServer(router: Router())
        server.server.stop()
        server.server.stop()
        #expect(server.server.boundPort == 0)
    }
}
