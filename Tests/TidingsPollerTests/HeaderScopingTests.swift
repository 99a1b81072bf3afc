import Foundation
import Testing
import TidingsDomain
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// A watch's request headers (often API keys) go only to the watch URL's
/// origin: not to a version endpoint or a redirect target on another
/// origin (two loopback servers on different ports are two origins). The
/// version endpoint's own `version_headers` go only to its origin.
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
        defer { poller.stop(); origin.stop(); other.stop(); context.close() }
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
        defer { poller.stop(); origin.stop(); versionServer.stop(); context.close() }
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

    private func value(of name: String, in request: (path: String, at: ContinuousClock.Instant, headers: [(name: String, value: String)]))
        -> String?
    {
        request.headers.first { $0.name.lowercased() == name }?.value
    }

    @Test func versionHeadersGoOnlyToTheVersionOrigin() async throws {
        let context = try PollerTestContext()
        let pages = OriginScript()
        let origin = try TestOriginServer { request in
            pages.record(request)
            return request.path == "/version" ? Self.json(#"{"v": 2}"#) : .text("page \(request.path)")
        }
        let versions = OriginScript()
        let versionServer = try TestOriginServer { request in
            versions.record(request)
            switch request.path {
            case "/v": return Self.json(#"{"v": 1}"#)
            default: return .redirect(to: "\(origin.baseURL)/elsewhere")
            }
        }
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); versionServer.stop(); context.close() }
        let user = try context.user()

        // Version endpoint on another origin: it gets its own headers only,
        // the page gets the watch's only.
        let foreign = try context.watch(
            user: user, url: "\(origin.baseURL)/page", headers: ["X-Api-Key": "page-key"],
            version: (url: "\(versionServer.baseURL)/v", pointer: "/v"), versionHeaders: ["X-Version-Token": "version-key"]
        )
        #expect(foreign.versionHeaderNames == ["x-version-token"])
        #expect(try await context.check(foreign, with: poller).result == .baseline)
        let versionRequest = try #require(versions.requests.last)
        #expect(value(of: "x-version-token", in: versionRequest) == "version-key")
        #expect(value(of: "x-api-key", in: versionRequest) == nil)
        let pageRequest = try #require(pages.requests.last { $0.path == "/page" })
        #expect(value(of: "x-api-key", in: pageRequest) == "page-key")
        #expect(value(of: "x-version-token", in: pageRequest) == nil)

        // Same origin: both sets, the version endpoint's winning on a shared name.
        let local = try context.watch(
            user: user, url: "\(origin.baseURL)/other", headers: ["X-Api-Key": "page-key", "X-Shared": "from-page"],
            version: (url: "\(origin.baseURL)/version", pointer: "/v"), versionHeaders: ["X-Shared": "from-version"]
        )
        _ = try await context.check(local, with: poller)
        let localVersion = try #require(pages.requests.last { $0.path == "/version" })
        #expect(value(of: "x-api-key", in: localVersion) == "page-key")
        #expect(value(of: "x-shared", in: localVersion) == "from-version")
        #expect(localVersion.headers.filter { $0.name.lowercased() == "x-shared" }.count == 1)
        let localPage = try #require(pages.requests.last { $0.path == "/other" })
        #expect(value(of: "x-shared", in: localPage) == "from-page")

        // A redirect off the version origin drops them.
        let redirected = try context.watch(
            user: user, url: "\(origin.baseURL)/third",
            version: (url: "\(versionServer.baseURL)/moved", pointer: "/v"), versionHeaders: ["X-Version-Token": "version-key"]
        )
        _ = try await context.check(redirected, with: poller)
        #expect(value(of: "x-version-token", in: try #require(versions.requests.last { $0.path == "/moved" })) == "version-key")
        let landed = try #require(pages.requests.last { $0.path == "/elsewhere" })
        #expect(value(of: "x-version-token", in: landed) == nil)

        // Version headers are part of the target: other headers, other target.
        let twin = try context.watch(
            user: user, url: "\(origin.baseURL)/page", headers: ["X-Api-Key": "page-key"],
            version: (url: "\(versionServer.baseURL)/v", pointer: "/v"), versionHeaders: ["X-Version-Token": "another-key"]
        )
        #expect(twin.targetID != foreign.targetID)
        let same = try context.watch(
            user: try context.user(), url: "\(origin.baseURL)/page", headers: ["X-Api-Key": "page-key"],
            version: (url: "\(versionServer.baseURL)/v", pointer: "/v"), versionHeaders: ["X-Version-Token": "version-key"]
        )
        #expect(same.targetID == foreign.targetID)

        // Stored sealed, under their own context.
        let stored = try context.database.query(
            """
            SELECT version_headers::text AS v FROM targets WHERE id = \(foreign.targetID)
            """
        ).single().decode("v", as: String.self)
        #expect(!stored.contains("version-key") && stored.contains("\"x-version-token\": \"enc:v1:"))
    }
}
