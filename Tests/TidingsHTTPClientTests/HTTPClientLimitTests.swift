#if canImport(Glibc)
import TidingsTestSupport
import Glibc
#endif
import Testing
import TidingsHTTPClient

@Suite struct HTTPClientLimitTests {
    static let limit = 1 << 20

    private static func bigBodyServer() throws -> TestOriginServer {
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 2 << 20)
        let exact = [UInt8](repeating: UInt8(ascii: "y"), count: limit)
        let bomb = Gzip.fourMiBOfZeros
        return try TestOriginServer { request in
            switch request.path {
            case "/length": TestResponse(body: big)
            case "/chunked": TestResponse(body: big, chunked: true)
            case "/exact": TestResponse(body: exact, chunked: true)
            case "/bomb": TestResponse(headers: [("Content-Encoding", "gzip")], body: bomb)
            default: .text("not found", status: 404)
            }
        }
    }

    @Test(arguments: ["/length", "/chunked", "/bomb"])
    func oversizedBodiesFailWithResponseTooLarge(_ path: String) async throws {
        let server = try Self.bigBodyServer()
        let client = try makeClient { $0.maxResponseSize = Self.limit }
        defer { client.shutdown(); server.stop() }

        let error = try #require(await failure(of: HTTPClientRequest(url: server.baseURL + path), on: client))

        #expect(error.code == .responseTooLarge)
        #expect(error.message == "response exceeded 1048576 bytes")
    }

    @Test func bodyOfExactlyTheLimitIsAccepted() async throws {
        let server = try Self.bigBodyServer()
        let client = try makeClient { $0.maxResponseSize = Self.limit }
        defer { client.shutdown(); server.stop() }

        let response = try await client.execute(HTTPClientRequest(url: server.baseURL + "/exact"))

        #expect(response.body.count == Self.limit)
    }

    @Test func perRequestLimitOverridesTheConfiguration() async throws {
        let server = try Self.bigBodyServer()
        let client = try makeClient()
        defer { client.shutdown(); server.stop() }

        var request = HTTPClientRequest(url: server.baseURL + "/exact")
        request.maxResponseSize = 1000
        let error = try #require(await failure(of: request, on: client))

        #expect(error.code == .responseTooLarge)
        #expect(error.message == "response exceeded 1000 bytes")
    }

    @Test(arguments: ["/length", "/chunked", "/bomb"])
    func truncatingRequestsKeepTheStartOfOversizedBodies(_ path: String) async throws {
        let server = try Self.bigBodyServer()
        let client = try makeClient()
        defer { client.shutdown(); server.stop() }

        var request = HTTPClientRequest(url: server.baseURL + path)
        request.maxResponseSize = 16_384
        request.truncatesResponseBody = true
        let response = try await client.execute(request)

        #expect(response.status == 200)
        #expect(response.body.count == 16_384)
        #expect(response.isBodyTruncated)
    }

    @Test func truncatingRequestsLeaveSmallBodiesWhole() async throws {
        let server = try Self.bigBodyServer()
        let client = try makeClient()
        defer { client.shutdown(); server.stop() }

        var request = HTTPClientRequest(url: server.baseURL + "/exact")
        request.maxResponseSize = Self.limit
        request.truncatesResponseBody = true
        let response = try await client.execute(request)

        #expect(response.body.count == Self.limit)
        #expect(!response.isBodyTruncated)
    }

    @Test func slowResponsesTimeOut() async throws {
        let server = try TestOriginServer { _ in .hang }
        let client = try makeClient()
        defer { client.shutdown(); server.stop() }

        var request = HTTPClientRequest(url: server.baseURL)
        // Long enough for the request to reach the server on a loaded
        // machine, so the total timeout (not the connect one) is what fires.
        request.timeout = .seconds(2)
        let started = ContinuousClock.now
        let error = try #require(await failure(of: request, on: client))

        #expect(error.code == .timeout)
        #expect(error.message == "timed out after 2s")
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(server.receivedRequests == 1)
    }

    @Test func unansweredConnectsHitTheConnectTimeout() async throws {
        // A listener whose accept queue is full drops further SYNs, so the
        // connect neither succeeds nor is refused.
        let listener = try LoopbackSocket.listen(backlog: 0)
        let port = try LoopbackSocket.port(of: listener)
        let fillers = (0..<4).map { _ in LoopbackSocket.connectNonBlocking(port: port) }
        let client = try makeClient { $0.connectTimeout = .milliseconds(300) }
        defer {
            client.shutdown()
            (fillers + [listener]).forEach { _ = close($0) }
        }

        let started = ContinuousClock.now
        let error = try #require(await failure(of: HTTPClientRequest(url: "http://127.0.0.1:\(port)/"), on: client))

        #expect(error.code == .timeout)
        #expect(error.message == "timed out after 300ms while connecting")
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}
