import Foundation
import Testing
import TidingsHTTPClient
import TidingsSynchronization

#if canImport(Glibc)
import TidingsTestSupport
import Glibc
#endif

@Suite struct HTTPClientLimitTests {
    static let limit = 1 << 20

    private static func bigBodyServer() throws -> TestOriginServer {
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 2 << 20)
        let exact = [UInt8](repeating: UInt8(ascii: "y"), count: limit)
        // About 4 MiB of zeros in 4 kB of gzip.
        let bomb = EncodedBodies.gzipZeros(zeroBytes: 4096)
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
        defer { client.stop(); server.stop() }

        let error = try #require(await failure(of: HTTPClientRequest(url: server.baseURL + path), on: client))

        #expect(error.code == .responseTooLarge)
        #expect(error.message == "response exceeded 1048576 bytes")
    }

    /// Bodies of a few kilobytes that decode to 1 GiB (gzip: 1 MB on the
    /// wire, still under the 1 MiB cap, so only the decoded bytes can trip
    /// it). The write callback counts decoded bytes and aborts at the cap,
    /// so the check fails without the process ever holding the gigabyte.
    @Test(arguments: [
        ("gzip", EncodedBodies.gzipZeros(zeroBytes: 1_040_000)),
        ("br", EncodedBodies.brGibibyteOfZeros),
        ("zstd", EncodedBodies.zstdZeros(blocks: 8192)),
        ("deflate", EncodedBodies.deflateZeros(zeroBytes: 1_040_000)),
        ("br", EncodedBodies.brZeros(blocks: 16)),
    ])
    func decompressionBombsStopAtTheCap(encoding: String, bomb: [UInt8]) async throws {
        let server = try TestOriginServer { _ in TestResponse(headers: [("Content-Encoding", encoding)], body: bomb) }
        let client = try makeClient { $0.maxResponseSize = Self.limit }
        defer { client.stop(); server.stop() }
        let peakBefore = try Self.peakResidentBytes()

        let error = try #require(await failure(of: HTTPClientRequest(url: server.baseURL), on: client))

        #expect(bomb.count < Self.limit)
        #expect(error.code == .responseTooLarge)
        #expect(error.message == "response exceeded 1048576 bytes")
        // The peak of the whole test process: decoding the bomb whole would
        // add 1 GiB; the other tests running beside this one add megabytes.
        #expect(try Self.peakResidentBytes() - peakBefore < 256 << 20)
    }

    /// VmHWM of this process.
    private static func peakResidentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes * 1024
    }

    @Test func bodyOfExactlyTheLimitIsAccepted() async throws {
        let server = try Self.bigBodyServer()
        let client = try makeClient { $0.maxResponseSize = Self.limit }
        defer { client.stop(); server.stop() }

        let response = try await client.execute(HTTPClientRequest(url: server.baseURL + "/exact"))

        #expect(response.body.count == Self.limit)
    }

    @Test func perRequestLimitOverridesTheConfiguration() async throws {
        let server = try Self.bigBodyServer()
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        var request = HTTPClientRequest(url: server.baseURL + "/exact")
        request.maxResponseSize = 1000
        let error = try #require(await failure(of: request, on: client))

        #expect(error.code == .responseTooLarge)
        #expect(error.message == "response exceeded 1000 bytes")
    }

    /// The snippet fills and the transfer ends: of a 2 MiB body only what
    /// libcurl had in its receive buffer then was read.
    @Test(arguments: ["/length", "/chunked"])
    func truncatingRequestsKeepTheStartOfOversizedBodiesAndStopReading(_ path: String) async throws {
        let server = try Self.bigBodyServer()
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        var request = HTTPClientRequest(url: server.baseURL + path)
        request.maxResponseSize = 16_384
        request.truncatesResponseBody = true
        let response = try await client.execute(request)

        #expect(response.status == 200)
        #expect(response.body == [UInt8](repeating: UInt8(ascii: "x"), count: 16_384))
        #expect(response.isBodyTruncated)
        #expect(response.bytesReceived < 256 << 10)
    }

    /// A receiver that answers a snippet request with a bomb of each
    /// encoding, 4 MiB on the wire that decode to gigabytes or more: the
    /// request offers no encoding, nothing is decoded (the snippet is the
    /// bytes as sent), and reading stops once the snippet is full. Decoding
    /// to keep 16 KiB had the driver thread, which every transfer of the
    /// client shares, busy for the whole timeout.
    @Test(arguments: [
        ("gzip", EncodedBodies.gzipZeros(zeroBytes: 4 << 20)),
        ("deflate", EncodedBodies.deflateZeros(zeroBytes: 4 << 20)),
        ("br", EncodedBodies.brZeros(blocks: 80_000)),
        ("zstd", EncodedBodies.zstdZeros(blocks: 1 << 20)),
    ])
    func snippetRequestsNeitherOfferNorDecodeEncodings(encoding: String, bomb: [UInt8]) async throws {
        let server = try TestOriginServer { request in
            if let offered = request.header("Accept-Encoding") { return .text("offered \(offered)", status: 400) }
            return TestResponse(headers: [("Content-Encoding", encoding)], body: bomb, chunked: true)
        }
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        var request = HTTPClientRequest(url: server.baseURL, method: "POST", body: Array("{}".utf8))
        request.maxResponseSize = 16_384
        request.truncatesResponseBody = true
        let response = try await client.execute(request)

        #expect(response.status == 200)
        #expect(response.body == Array(bomb.prefix(16_384)))
        #expect(response.isBodyTruncated)
        #expect(response.bytesReceived < 256 << 10)
    }

    /// A bomb's raw bytes under the snippet limit are kept whole, undecoded.
    @Test func snippetRequestsKeepASmallEncodedBodyAsSent() async throws {
        let server = try Self.bigBodyServer()
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        var request = HTTPClientRequest(url: server.baseURL + "/bomb")
        request.maxResponseSize = 16_384
        request.truncatesResponseBody = true
        let response = try await client.execute(request)

        #expect(response.body == EncodedBodies.gzipZeros(zeroBytes: 4096))
        #expect(!response.isBodyTruncated)
    }

    @Test func truncatingRequestsLeaveSmallBodiesWhole() async throws {
        let server = try Self.bigBodyServer()
        let client = try makeClient()
        defer { client.stop(); server.stop() }

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
        defer { client.stop(); server.stop() }

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
            client.stop()
            (fillers + [listener]).forEach { _ = close($0) }
        }

        let started = ContinuousClock.now
        let error = try #require(await failure(of: HTTPClientRequest(url: "http://127.0.0.1:\(port)/"), on: client))

        #expect(error.code == .timeout)
        #expect(error.message == "timed out after 300ms while connecting")
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}
