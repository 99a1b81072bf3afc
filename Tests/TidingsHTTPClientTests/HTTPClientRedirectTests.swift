import Testing
import TidingsHTTPClient
import TidingsSynchronization
import TidingsTestSupport

@Suite struct HTTPClientRedirectTests {
    /// /hops/N redirects to /hops/N-1 (with an X-Hop header); /hops/0 answers.
    private static func chainServer() throws -> TestOriginServer {
        try TestOriginServer { request in
            if request.path == "/to-file" { return .redirect(to: "file:///etc/passwd") }
            if request.path == "/to-ftp" { return .redirect(to: "ftp://127.0.0.1/") }
            guard let remaining = Int(request.path.dropFirst("/hops/".count)) else { return .text("?", status: 404) }
            if remaining == 0 { return .text("arrived") }
            var response = TestResponse.redirect(to: "/hops/\(remaining - 1)")
            response.headers.append(("X-Hop", "\(remaining)"))
            return response
        }
    }

    @Test func redirectsAreFollowedUpToTheLimit() async throws {
        let server = try Self.chainServer()
        let client = try makeClient { $0.maxRedirects = 5 }
        defer { client.stop(); server.stop() }

        let response = try await client.execute(HTTPClientRequest(url: server.baseURL + "/hops/5"))

        #expect(response.status == 200)
        #expect(response.text == "arrived")
        #expect(response.redirectCount == 5)
        #expect(response.effectiveURL == server.baseURL + "/hops/0")
        // Headers of the redirect responses are dropped.
        #expect(response.header("X-Hop") == nil)
        #expect(response.header("Location") == nil)
    }

    @Test func moreRedirectsThanTheLimitFail() async throws {
        let server = try Self.chainServer()
        let client = try makeClient { $0.maxRedirects = 5 }
        defer { client.stop(); server.stop() }

        let error = try #require(await failure(of: HTTPClientRequest(url: server.baseURL + "/hops/6"), on: client))

        #expect(error.code == .tooManyRedirects)
        #expect(error.message == "stopped after 5 redirects")
    }

    @Test func redirectsCanBeReturnedInsteadOfFollowed() async throws {
        let server = try Self.chainServer()
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        var request = HTTPClientRequest(url: server.baseURL + "/hops/2")
        request.followRedirects = false
        let response = try await client.execute(request)

        #expect(response.status == 302)
        #expect(response.header("location") == "/hops/1")
        #expect(response.header("X-Hop") == "2")
        #expect(server.receivedRequests == 1)
    }

    @Test(arguments: ["/to-file", "/to-ftp"])
    func redirectsToOtherSchemesAreRefused(_ path: String) async throws {
        let server = try Self.chainServer()
        let client = try makeClient()
        defer { client.stop(); server.stop() }

        let error = try #require(await failure(of: HTTPClientRequest(url: server.baseURL + path), on: client))

        #expect(error.code == .unsupportedScheme)
    }
}
