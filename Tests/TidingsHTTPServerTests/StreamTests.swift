import Dispatch
import Testing
import TidingsHTTPServer
import TidingsObservability
import TidingsSynchronization
import TidingsTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Streamed responses (Server-Sent Events) over real sockets: bytes sent
/// from other threads, clean ends, clients that leave or stop reading, and
/// shutdown. Outcomes are checked by what arrives and in which order, not
/// by how long it took.
@Suite struct StreamTests {
    static let suspending = HTTPServerThreading.suspending(pollingThreads: 2, handlerThreads: 4)

    private static func makeServer(
        _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
        bufferLimit: Int = 256 * 1024
    ) throws -> (server: TestServer, source: StreamSource) {
        var configuration = HTTPServerConfiguration()
        configuration.threading = suspending
        configure(&configuration)
        let source = StreamSource(bufferLimit: bufferLimit)
        var router = Router()
        source.install(on: &router)
        router.get("/ping") { _, _ in .text("pong") }
        return (try TestServer(configuration: configuration, router: router), source)
    }

    private static func openStream(_ connection: RawHTTPConnection, _ request: String = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n") throws
        -> RawHTTPResponse
    {
        try connection.send(request)
        return try connection.readHead()
    }

    /// Reads chunks until the clean end of the body.
    private static func readToEnd(_ connection: RawHTTPConnection) throws -> [UInt8] {
        var received: [UInt8] = []
        while let chunk = try connection.readChunk() { received += chunk }
        return received
    }

    @Test func bytesSentFromAnotherThreadArriveInOrderAndFinishEndsCleanly() throws {
        let (server, source) = try Self.makeServer()
        let connection = try server.connect()
        let head = try Self.openStream(connection)
        #expect(head.status == 200)
        #expect(head.headers["Content-Type"] == "text/event-stream")
        #expect(head.headers["Cache-Control"] == "no-cache")
        #expect(head.headers["X-Accel-Buffering"] == "no")
        #expect(head.headers["Transfer-Encoding"] == "chunked")
        let stream = try #require(source.next())

        let events = (0..<200).map { "data: event \($0)\n\n" }
        DispatchQueue.global().async {
            for event in events {
                stream.send(Array(event.utf8))
                if event.hasSuffix("7\n\n") { usleep(1000) } // sometimes find the connection waiting
            }
            stream.finish()
        }
        #expect(String(decoding: try Self.readToEnd(connection), as: UTF8.self) == events.joined())
        #expect(eventuallyBlocking(timeout: .seconds(10)) { source.closeReasons == [.finished] })
        #expect(!stream.send(Array("late".utf8)))

        // The connection stays open for the next request.
        #expect(try connection.request("GET", "/ping").text == "pong")
        let line = try #require(server.logLine(containing: "\"http.stream.close_reason\":\"finished\""))
        #expect(line.contains("\"http.bytes_out\":\"\(events.joined().utf8.count)\""))
    }

    @Test func aClientThatLeavesClosesTheStreamAtTheNextSend() throws {
        let (server, source) = try Self.makeServer()
        var connection: RawHTTPConnection? = try server.connect()
        _ = try Self.openStream(connection!)
        let stream = try #require(source.next())
        #expect(stream.send(Array(": hello\n\n".utf8)))
        #expect(try connection?.readChunk() == Array(": hello\n\n".utf8))
        connection = nil

        // A waiting connection is not polled: the heartbeats find it gone.
        #expect(
            eventuallyBlocking(timeout: .seconds(10)) {
                stream.send(Array(": heartbeat\n\n".utf8))
                return source.closeReasons == [.clientGone]
            })
        #expect(!stream.isOpen)
        #expect(server.logLine(containing: "\"http.stream.close_reason\":\"client_gone\"") != nil)
        let gauge = server.metrics.gauge("tidings_http_streams_open", help: "")
        #expect(eventuallyBlocking(timeout: .seconds(10)) { gauge.value() == 0 })
    }

    @Test func aReaderThatStopsReadingIsCutPastTheBufferLimit() throws {
        let (server, source) = try Self.makeServer(bufferLimit: 64 * 1024)
        let connection = try server.connect()
        _ = try Self.openStream(connection)
        let stream = try #require(source.next())

        // The socket buffers take megabytes first; then the stream's 64 KiB.
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 16 * 1024)
        var accepted = 0
        while stream.send(chunk), accepted < 10_000 { accepted += 1 }
        #expect(accepted < 10_000)
        #expect(eventuallyBlocking(timeout: .seconds(10)) { source.closeReasons == [.bufferOverflow] })
        let closed = server.metrics.counter("tidings_http_streams_closed_total", help: "")
        #expect(eventuallyBlocking(timeout: .seconds(10)) { closed.value(labels: ["reason": "buffer_overflow"]) == 1 })

        // The client then finds a cut body, never a clean end.
        #expect(throws: RawHTTPConnection.Failure.self) { try Self.readToEnd(connection) }
    }

    @Test func aStreamWhoseClientKeepsUpOutlivesTheResponseTimeout() throws {
        let (server, source) = try Self.makeServer { $0.responseTimeout = .seconds(1) }
        let connection = try server.connect()
        _ = try Self.openStream(connection)
        let stream = try #require(source.next())
        for index in 0..<10 {
            usleep(300_000) // events paced over 3 s, past the 1 s response timeout
            let event = Array("data: \(index)\n\n".utf8)
            #expect(stream.send(event))
            #expect(try connection.readChunk() == event)
        }
        #expect(source.closeReasons.isEmpty)
        stream.finish()
        #expect(try connection.readChunk() == nil)
    }

    @Test func aStreamWhoseClientFallsBehindIsCutAtTheResponseTimeout() throws {
        let (server, source) = try Self.makeServer({ $0.responseTimeout = .seconds(1) }, bufferLimit: 256 << 20)
        let connection = try server.connect()
        _ = try Self.openStream(connection)
        let stream = try #require(source.next())

        // The socket buffers fill first; then bytes wait in the stream, and
        // a send a second later finds the client still behind.
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        let started = ContinuousClock.now
        // Paced sends until one finds the client behind: the timeout under test.
        while stream.send(chunk), ContinuousClock.now - started < .seconds(20) { usleep(20_000) }
        #expect(eventuallyBlocking(timeout: .seconds(10)) { source.closeReasons == [.responseTimeout] })
        let closed = server.metrics.counter("tidings_http_streams_closed_total", help: "")
        #expect(eventuallyBlocking(timeout: .seconds(10)) { closed.value(labels: ["reason": "response_timeout"]) == 1 })
        let timeouts = server.metrics.counter("tidings_http_response_timeouts_total", help: "")
        #expect(timeouts.value() == 1)
        #expect(throws: RawHTTPConnection.Failure.self) { try Self.readToEnd(connection) }
    }

    @Test func aWaitingStreamOutlivesTheIdleTimeout() throws {
        let (server, source) = try Self.makeServer { $0.connectionIdleTimeout = .seconds(1) }
        let connection = try server.connect()
        _ = try Self.openStream(connection)
        let stream = try #require(source.next())
        usleep(2_500_000) // quiet past the 1 s idle timeout under test
        #expect(stream.send(Array("data: still here\n\n".utf8)))
        #expect(try connection.readChunk() == Array("data: still here\n\n".utf8))
        stream.finish()
        #expect(try connection.readChunk() == nil)
    }

    @Test func aThousandOpenStreamsAddNoThreads() throws {
        let (server, source) = try Self.makeServer {
            $0.connectionLimit = 2100
            $0.connectionsPerClient = 2100
        }
        #expect(try server.request("GET", "/ping").text == "pong") // handler threads started
        let before = try Self.threadCount()
        var connections: [RawHTTPConnection] = []
        var streams: [HTTPResponseStream] = []
        for _ in 0..<1000 {
            let connection = try server.connect()
            #expect(try Self.openStream(connection).status == 200)
            connections.append(connection)
            streams.append(try #require(source.next()))
        }
        let after = try Self.threadCount()
        // A thread each would be +1000; other suites running meanwhile
        // start a few threads of their own.
        #expect(after - before < 100, "threads \(before) -> \(after)")
        let gauge = server.metrics.gauge("tidings_http_streams_open", help: "")
        #expect(gauge.value() == 1000)

        for (index, stream) in streams.enumerated() { #expect(stream.send(Array("data: \(index)\n\n".utf8))) }
        for index in [0, 499, 999] {
            #expect(try connections[index].readChunk() == Array("data: \(index)\n\n".utf8))
        }
    }

    @Test func shutdownEndsStreamsCleanlyAndLetsAHandlerFinish() throws {
        let handlerEntered = DispatchSemaphore(value: 0)
        let releaseHandler = DispatchSemaphore(value: 0)
        var configuration = HTTPServerConfiguration()
        configuration.threading = Self.suspending
        let source = StreamSource()
        var router = Router()
        source.install(on: &router)
        router.get("/slow") { _, _ in
            handlerEntered.signal()
            _ = releaseHandler.wait(timeout: .now() + .seconds(10))
            return .text("finished")
        }
        let server = try TestServer(configuration: configuration, router: router)

        let connections = try (0..<3).map { _ in try server.connect() }
        var streams: [HTTPResponseStream] = []
        for connection in connections {
            _ = try Self.openStream(connection)
            streams.append(try #require(source.next()))
        }
        for stream in streams { stream.send(Array("data: before\n\n".utf8)) }
        let slow = BackgroundRequest(port: server.port, "GET", "/slow")
        #expect(handlerEntered.wait(timeout: .now() + .seconds(5)) == .success)

        let shutdownDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.server.stop()
            shutdownDone.signal()
        }
        // Each stream: what was sent, then a clean end.
        for connection in connections {
            #expect(try Self.readToEnd(connection) == Array("data: before\n\n".utf8))
        }
        #expect(eventuallyBlocking(timeout: .seconds(10)) { source.closeReasons == [.serverShutdown, .serverShutdown, .serverShutdown] })
        // The handler still answers within the grace period.
        releaseHandler.signal()
        let response = try #require(try slow.response(timeout: .seconds(5)))
        #expect(response.text == "finished")
        #expect(response.headers["Connection"]?.lowercased() == "close")
        #expect(shutdownDone.wait(timeout: .now() + .seconds(5)) == .success)
    }

    /// Past the grace period a handler's connection is closed unanswered
    /// and shutdown returns; the handler's late answer is dropped.
    @Test func shutdownDoesNotWaitPastTheGracePeriodForAHandler() throws {
        let releaseHandler = DispatchSemaphore(value: 0)
        let handlerEntered = DispatchSemaphore(value: 0)
        var configuration = HTTPServerConfiguration()
        configuration.threading = Self.suspending
        configuration.shutdownGracePeriod = .milliseconds(300)
        var router = Router()
        router.get("/stuck") { _, _ in
            handlerEntered.signal()
            _ = releaseHandler.wait(timeout: .now() + .seconds(10))
            return .text("too late")
        }
        let server = try TestServer(configuration: configuration, router: router)
        let stuck = BackgroundRequest(port: server.port, "GET", "/stuck")
        #expect(handlerEntered.wait(timeout: .now() + .seconds(5)) == .success)

        let shutdownDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.server.stop()
            shutdownDone.signal()
        }
        #expect(throws: RawHTTPConnection.Failure.self) { try stuck.response(timeout: .seconds(5)) }
        // Shutdown joins the handler threads, so it returns once released.
        releaseHandler.signal()
        #expect(shutdownDone.wait(timeout: .now() + .seconds(5)) == .success)
    }

    @Test func aStreamWhereHandlersRunInlineIsA500() throws {
        let (server, source) = try Self.makeServer { $0.threading = .threadPerConnection }
        let response = try server.request("GET", "/events")
        #expect(response.status == 500)
        #expect(response.problem?.status == 500)
        #expect(source.closeReasons == [.notServed])
        #expect(server.logLine(containing: "a streamed response needs the suspending threading mode") != nil)
    }

    // MARK: Hostile clients

    @Test func garbageSentAfterOpeningAStreamDoesNotDisturbIt() throws {
        let (server, source) = try Self.makeServer()
        let connection = try server.connect()
        _ = try Self.openStream(connection)
        let stream = try #require(source.next())
        try connection.send([0x00, 0xFF] + Array("NOT HTTP AT ALL\r\n\r\n".utf8) + [UInt8](repeating: 0x41, count: 64 * 1024))
        #expect(stream.send(Array("data: one\n\n".utf8)))
        #expect(try connection.readChunk() == Array("data: one\n\n".utf8))
        stream.finish()
        #expect(try connection.readChunk() == nil)
        // The garbage is read as the next request: refused (libmicrohttpd's
        // own 400 or 414), never served.
        let next = try? connection.readResponse()
        #expect(next.map { (400..<500).contains($0.status) } ?? true)
        #expect(try server.request("GET", "/ping").text == "pong")
    }

    @Test func aStreamRequestWithABodyIsServed() throws {
        let (server, source) = try Self.makeServer()
        let connection = try server.connect()
        let head = try Self.openStream(
            connection,
            "POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world"
        )
        #expect(head.status == 200)
        let stream = try #require(source.next())
        #expect(stream.send(Array("data: ok\n\n".utf8)))
        #expect(try connection.readChunk() == Array("data: ok\n\n".utf8))
    }

    @Test func streamsFromOneAddressAreHeldToItsConnectionCap() throws {
        let (server, source) = try Self.makeServer { $0.connectionsPerClient = 4 }
        var open: [RawHTTPConnection] = []
        var refused = 0
        for _ in 0..<6 {
            let connection = try server.connect(receiveTimeoutSeconds: 5)
            if (try? Self.openStream(connection))?.status == 200 {
                open.append(connection)
            } else {
                refused += 1
            }
        }
        #expect(open.count == 4)
        #expect(refused == 2)
        for _ in 0..<4 { #expect(source.next() != nil) }
        // Another address is still served.
        #expect(try server.connect(from: "127.0.0.2").request("GET", "/ping").text == "pong")
    }

    /// The process's thread count, from /proc/self/status.
    private static func threadCount() throws -> Int {
        let descriptor = open("/proc/self/status", O_RDONLY)
        guard descriptor >= 0 else { throw RawHTTPConnection.Failure(description: "cannot open /proc/self/status") }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 8192)
        let count = read(descriptor, &bytes, bytes.count)
        let status = String(decoding: bytes[..<max(0, count)], as: UTF8.self)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }),
            let threads = Int(line.dropFirst("Threads:".count).trimmingPrefix(while: { $0 == " " || $0 == "\t" }))
        else { throw RawHTTPConnection.Failure(description: "no Threads line in /proc/self/status") }
        return threads
    }
}
