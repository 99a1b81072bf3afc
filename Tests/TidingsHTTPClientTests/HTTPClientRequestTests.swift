import Foundation
import Testing
import TidingsHTTPClient
import TidingsObservability
import TidingsSynchronization
import TidingsTestSupport

@Suite struct HTTPClientRequestTests {
    /// A status line libcurl cannot take is the server's fault, said so;
    /// a hostile-input hunt found it reported as an unsupported scheme.
    @Test(arguments: [0, 99, 1000, 2000])
    func statusLinesOutOfRangeAreMalformedResponses(status: Int) async throws {
        let origin = try TestOriginServer { _ in TestResponse(status: status, body: Array("x".utf8)) }
        let client = try makeClient()
        defer { client.stop(); origin.stop() }

        let error = try #require(await failure(of: HTTPClientRequest(url: origin.baseURL + "/"), on: client))

        #expect(error.code == .malformedResponse, "\(error)")
        #expect(error.userDescription == "malformed_response: the server's answer is not a valid HTTP response")
    }

    @Test func getReturnsStatusHeadersAndBody() async throws {
        let server = try TestOriginServer { request in
            TestResponse(
                status: 203, headers: [("X-Answer", "42"), ("Content-Type", "text/plain")], body: Array("hello \(request.path)".utf8))
        }
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        let response = try await client.execute(HTTPClientRequest(url: "\(server.baseURL)/greeting"))

        #expect(response.status == 203)
        #expect(response.text == "hello /greeting")
        #expect(response.header("x-answer") == "42")
        #expect(response.header("CONTENT-TYPE") == "text/plain")
        #expect(response.header("Missing") == nil)
        #expect(response.effectiveURL == "\(server.baseURL)/greeting")
        #expect(response.remoteAddress == "127.0.0.1")
        #expect(response.redirectCount == 0)
        #expect(response.bytesReceived == 15)
        #expect(response.duration > .zero)
    }

    @Test func postSendsBodyAndCustomHeaders() async throws {
        let server = try TestOriginServer { request in
            let echoed = request.headers.map { "\($0.name.lowercased())=\($0.value)" }.joined(separator: "\n")
            return .text("\(request.method) \(String(decoding: request.body, as: UTF8.self))\n\(echoed)")
        }
        let client = try makeClient { $0.userAgent = "TidingsTest/1" }
        defer { client.stop(); server.stop() }

        let request = HTTPClientRequest(
            url: "\(server.baseURL)/echo",
            method: "POST",
            headers: [("X-Custom", "abc def"), ("Content-Type", "application/json"), ("X-Empty", "")],
            body: Array(#"{"a":1}"#.utf8)
        )
        let lines = try await client.execute(request).text.split(separator: "\n", omittingEmptySubsequences: false)

        #expect(lines.first == #"POST {"a":1}"#)
        #expect(lines.contains("x-custom=abc def"))
        #expect(lines.contains("content-type=application/json"))
        #expect(lines.contains("x-empty="))
        #expect(lines.contains("user-agent=TidingsTest/1"))
        #expect(lines.contains("content-length=7"))
        #expect(!lines.contains { $0.hasPrefix("expect=") })
    }

    @Test func customMethodsAndEmptyPostsAreSent() async throws {
        let server = try TestOriginServer { request in
            .text("\(request.method) \(request.header("Content-Length") ?? "none") \(request.body.count)")
        }
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        let put = try await client.execute(HTTPClientRequest(url: server.baseURL, method: "PUT", body: [1, 2, 3]))
        let delete = try await client.execute(HTTPClientRequest(url: server.baseURL, method: "DELETE"))
        let emptyPost = try await client.execute(HTTPClientRequest(url: server.baseURL, method: "POST"))

        #expect(put.text == "PUT 3 3")
        #expect(delete.text == "DELETE none 0")
        #expect(emptyPost.text == "POST 0 0")
    }

    /// libcurl's empty CURLOPT_ACCEPT_ENCODING offers every encoding it was
    /// built to decode; the project's libcurl (Debian's) has all three.
    @Test func acceptEncodingOffersGzipBrAndZstd() async throws {
        let server = try TestOriginServer { request in .text(request.header("Accept-Encoding") ?? "") }
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        let offered = try await client.execute(HTTPClientRequest(url: server.baseURL)).text
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }

        #expect(Set(["gzip", "br", "zstd"]).isSubset(of: Set(offered)))
    }

    @Test(arguments: [
        ("gzip", EncodedBodies.gzipSample),
        ("br", EncodedBodies.brSample),
        ("zstd", EncodedBodies.zstdSample),
    ])
    func encodedBodiesAreDecoded(encoding: String, compressed: [UInt8]) async throws {
        let server = try TestOriginServer { request in
            guard request.header("Accept-Encoding")?.contains(encoding) == true else {
                return .text("\(encoding) not offered", status: 400)
            }
            return TestResponse(headers: [("Content-Encoding", encoding)], body: compressed)
        }
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        let response = try await client.execute(HTTPClientRequest(url: server.baseURL))

        #expect(response.status == 200)
        #expect(response.text == EncodedBodies.sampleText)
        // Bytes on the wire, not the decoded size.
        #expect(response.bytesReceived == compressed.count)
    }

    @Test func headerInjectionIsRejectedWithoutEchoingTheValue() async throws {
        let client = try makeClient()
        defer { client.stop() }

        let request = HTTPClientRequest(url: "http://127.0.0.1:1/", headers: [("Authorization", "Bearer secret\r\nX-Evil: 1")])
        let error = try #require(await failure(of: request, on: client))

        #expect(error.code == .invalidRequest)
        #expect(!error.message.contains("secret"))
        #expect(error.message.contains("Authorization"))
    }
}
