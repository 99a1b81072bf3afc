import TidingsTestSupport
import Foundation
import Testing
import TidingsDomain
@testable import TidingsPoller

/// A watch's request headers (often API keys) go only to the watch URL's
/// origin: not to a version endpoint or a redirect target on another
/// origin (two loopback servers on different ports are two origins).
@Suite(.serialized) struct HeaderScopingTests {
    private static let secret = "Bearer tenant-secret-1234"

    private static func json(_ text: String) -> TestResponse {
        TestResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
    }

    private func sawSecret(_ script: OriginScript) -> Bool {
        script.requests.contains { request in
            request.headers.contains { $0.name.lowercased() == "x-api-key" || $0.value == Self.secret }
        }
    }

    @Test func headersStayOffRedirectsToAnotherOrigin() async throws {
        let context = try PollerTestContext()
        let elsewhere = OriginScript()
        let other = try TestOriginServer { request in
            elsewhere.record(request)
            return .text("landed")
        }
        let home = OriginScript()
        let origin = try TestOriginServer { request in
            home.record(request)
            switch request.path {
            case "/same": return .redirect(to: "/final")
            case "/final": return .text("same origin")
            default: return .redirect(to: "http://127.0.0.1:\(other.port)/landing")
            }
        }
        let poller = try context.poller()
        defer { poller.shutdown(); origin.stop(); other.stop(); context.close() }
        let user = try context.user()
        let headers = ["X-Api-Key": "k-1", "Authorization": Self.secret]

        let away = try context.watch(user: user, url: "\(origin.baseURL)/away", headers: headers)
        #expect(try await context.check(away, with: poller).result == .baseline)
        #expect(elsewhere.requests.count == 1)
        #expect(!sawSecret(elsewhere), "the other origin received the watch's headers")
        #expect(sawSecret(home))

        // A redirect within the origin keeps them.
        let same = try context.watch(user: user, url: "\(origin.baseURL)/same", headers: headers)
        #expect(try await context.check(same, with: poller).result == .baseline)
        let final = try #require(home.requests.last)
        #expect(final.path == "/final")
        #expect(final.headers.contains { $0.name.lowercased() == "x-api-key" && $0.value == "k-1" })
    }

    @Test func versionEndpointsOnAnotherOriginGetNoHeaders() async throws {
        let context = try PollerTestContext()
        let versions = OriginScript()
        let versionServer = try TestOriginServer { request in
            versions.record(request)
            return Self.json(#"{"v": 1}"#)
        }
        let pages = OriginScript()
        let origin = try TestOriginServer { request in
            pages.record(request)
            return request.path == "/version" ? Self.json(#"{"v": 1}"#) : .text("page")
        }
        let poller = try context.poller()
        defer { poller.shutdown(); origin.stop(); versionServer.stop(); context.close() }
        let user = try context.user()
        let headers = ["X-Api-Key": "k-2"]

        let foreign = try context.watch(
            user: user, url: "\(origin.baseURL)/page", headers: headers,
            version: (url: "\(versionServer.baseURL)/v", pointer: "/v")
        )
        _ = try await context.check(foreign, with: poller)
        #expect(versions.requests.count == 1)
        #expect(!sawSecret(versions))

        let local = try context.watch(
            user: user, url: "\(origin.baseURL)/other", headers: headers,
            version: (url: "\(origin.baseURL)/version", pointer: "/v")
        )
        _ = try await context.check(local, with: poller)
        let versionRequest = try #require(pages.requests.first { $0.path == "/version" })
        #expect(versionRequest.headers.contains { $0.name.lowercased() == "x-api-key" })
    }
}
