import Dispatch
import Synchronization
import TidingsObservability
import Testing
import TidingsHTTPServer

@Suite struct ConnectionTests {
    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        var router = Router()
        router.post("/echo") { request, _ in HTTPResponse(body: request.body) }
        let server = try TestServer(router: router)
        let connection = try server.connect()
        let first = try connection.request("POST", "/echo", body: Array("one".utf8))
        let second = try connection.request("POST", "/echo", body: Array("two".utf8))
        #expect(first.text == "one")
        #expect(second.text == "two")
        #expect(first.headers["Connection"]?.lowercased() != "close")
    }

    @Test func shutdownLetsAnInFlightRequestFinish() throws {
        let handlerEntered = DispatchSemaphore(value: 0)
        let releaseHandler = DispatchSemaphore(value: 0)
        var router = Router()
        router.get("/slow") { _, _ in
            handlerEntered.signal()
            _ = releaseHandler.wait(timeout: .now() + .seconds(10))
            return .text("finished")
        }
        let server = try TestServer(router: router)
        let port = server.port

        let outcome = Mutex<Result<RawHTTPResponse, any Error>?>(nil)
        let clientDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let result = Result { try RawHTTPConnection(port: port).request("GET", "/slow") }
            outcome.withLock { $0 = result }
            clientDone.signal()
        }
        #expect(handlerEntered.wait(timeout: .now() + .seconds(5)) == .success)

        let shutdownDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.server.shutdown()
            shutdownDone.signal()
        }
        // Once the server drains, new connections are closed unanswered...
        #expect(poll { (try? RawHTTPConnection(port: port).request("GET", "/slow")) == nil })
        // ...while the request already running still gets its answer.
        releaseHandler.signal()
        #expect(clientDone.wait(timeout: .now() + .seconds(5)) == .success)
        let response = try #require(try outcome.withLock { $0 }?.get())
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

    @Test func shutdownIsIdempotent() throws {
        let server = try TestServer(router: Router())
        server.server.shutdown()
        server.server.shutdown()
        #expect(server.server.boundPort == 0)
    }
}
