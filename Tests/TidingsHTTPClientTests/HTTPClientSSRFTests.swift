import Testing
import TidingsHTTPClient
import TidingsObservability
import TidingsSynchronization
import TidingsTestSupport

@Suite struct HTTPClientSSRFTests {
    private func guardedClient(logSink: CapturingLogSink = CapturingLogSink()) throws -> HTTPClient {
        try makeClient(logSink: logSink) { $0.allowPrivateTargets = false }
    }

    @Test func loopbackLiteralIsRefusedBeforeConnecting() async throws {
        let server = try TestOriginServer { _ in .text("should not be reached") }
        let logSink = CapturingLogSink()
        let client = try guardedClient(logSink: logSink)
        defer { client.stop(); server.stop() }

        let request = HTTPClientRequest(url: "\(server.baseURL)/", headers: [("Authorization", "Bearer top-secret")])
        let error = try #require(await failure(of: request, on: client))

        #expect(error.code == .blockedAddress)
        #expect(
            error.message == "address 127.0.0.1 is in a loopback range (127.0.0.0/8); set TIDINGS_ALLOW_PRIVATE_TARGETS=true to allow it")
        #expect(server.acceptedConnections == 0)
        #expect(!logSink.lines.contains { $0.contains("top-secret") })
    }

    @Test func namesResolvingToLoopbackAreRefusedAtConnectTime() async throws {
        let server = try TestOriginServer { _ in .text("should not be reached") }
        let client = try guardedClient()
        defer { client.stop(); server.stop() }

        let error = try #require(await failure(of: HTTPClientRequest(url: "http://localhost:\(server.port)/"), on: client))

        #expect(error.code == .blockedAddress)
        #expect(error.message.contains("loopback"))
        #expect(server.acceptedConnections == 0)
    }

    @Test func ipv6LoopbackIsRefused() async throws {
        let client = try guardedClient()
        defer { client.stop() }

        let error = try #require(await failure(of: HTTPClientRequest(url: "http://[::1]:9/"), on: client))

        #expect(error.code == .blockedAddress)
        #expect(error.message.hasPrefix("address ::1 is in a loopback range (::1/128)"))
    }

    @Test func metadataAddressIsRefusedWithoutTraffic() async throws {
        let client = try guardedClient()
        defer { client.stop() }

        let error = try #require(await failure(of: HTTPClientRequest(url: "http://169.254.169.254/latest/meta-data/"), on: client))

        #expect(error.code == .blockedAddress)
        #expect(error.message.contains("link-local range (169.254.0.0/16)"))
    }

    @Test func operatorConfiguredClientsReachPrivateAddresses() async throws {
        let server = try TestOriginServer { _ in .text("operator endpoint") }
        let client = try makeClient {
            $0.allowPrivateTargets = false
            $0.urlSource = .operatorConfiguration
        }
        let tenantClient = try guardedClient()
        defer { client.stop(); tenantClient.stop(); server.stop() }

        let response = try await client.execute(HTTPClientRequest(url: "\(server.baseURL)/"))
        let refused = try #require(await failure(of: HTTPClientRequest(url: "\(server.baseURL)/"), on: tenantClient))

        #expect(response.status == 200 && response.text == "operator endpoint")
        #expect(refused.code == .blockedAddress)
        #expect(server.acceptedConnections == 1)
    }

    @Test(arguments: ["ftp://127.0.0.1/file", "file:///etc/passwd", "gopher://127.0.0.1/"])
    func onlyHTTPAndHTTPSAreAccepted(_ url: String) async throws {
        let client = try makeClient()
        defer { client.stop() }

        let error = try #require(await failure(of: HTTPClientRequest(url: url), on: client))

        #expect(error.code == .unsupportedScheme)
    }

    @Test(arguments: ["127.0.0.1/", "http://", "http://exa mple.com/"])
    func malformedURLsAreRejected(_ url: String) async throws {
        let client = try makeClient()
        defer { client.stop() }

        let error = try #require(await failure(of: HTTPClientRequest(url: url), on: client))

        #expect(error.code == .invalidURL)
    }
}
