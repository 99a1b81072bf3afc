import Foundation
import Testing
import TidingsDomain
import TidingsHTTPClient
import TidingsIP
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// The check pipeline through `Poller.checkNow`, one check at a time,
/// against real loopback origins and a real database.
@Suite(.serialized) struct CheckPipelineTests {
    /// A page with an ETag derived from its text, answering 304 to a matching If-None-Match.
    private static func etagOrigin(_ script: OriginScript) throws -> TestOriginServer {
        try TestOriginServer { request in
            script.record(request)
            let page = script["page"] ?? ""
            let etag = "\"\(page.utf8.count)-\(abs(page.hashValue % 100_000))\""
            if request.header("If-None-Match") == etag { return TestResponse(status: 304, headers: [("ETag", etag)]) }
            return TestResponse(status: 200, headers: [("Content-Type", "text/html"), ("ETag", etag)], body: Array(page.utf8))
        }
    }

    @Test func etagPathSends304AfterFirstFetchAndDetectsTheChange() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["page"] = "<p>Version one. Nothing else.</p>"
        let origin = try Self.etagOrigin(script)
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let user = try context.user()
        let watch = try context.watch(user: user, url: "\(origin.baseURL)/page")

        #expect(try await context.check(watch, with: poller).result == .baseline)
        #expect(try await context.check(watch, with: poller).result == .notModified)
        let conditional = try #require(script.requests.last)
        #expect(conditional.headers.contains { $0.name == "If-None-Match" })

        script["page"] = "<p>Version two. Nothing else.</p>"
        let changed = try await context.check(watch, with: poller)
        #expect(changed.result == .changed)
        #expect(changed.changeID != nil)
        #expect(try context.changeCount(of: watch) == 1)
        let diff = try #require(try context.change(of: watch)).diff
        #expect(diff.contains("\n-Version one.\n+Version two.\n Nothing else.\n"), "\(diff)")
        #expect(try context.events(of: user, type: "watch.changed").count == 1)

        let reloaded = try context.reload(watch)
        #expect(reloaded.unreadCount == 1)
        #expect(reloaded.fetchStatistics.requests == 3)
        #expect(reloaded.fetchStatistics.notModified == 1)
        #expect(reloaded.fetchStatistics.bytesSaved > 0)
    }

    /// Watches of the same URL and headers share a target, whoever owns
    /// them; a new one's statistics start at zero, so they cannot tell its
    /// owner that someone else already watches the page.
    @Test func fetchStatisticsCountFromWhenTheWatchJoined() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["page"] = "<p>Shared page.</p>"
        let origin = try Self.etagOrigin(script)
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let first = try context.watch(user: try context.user(), url: "\(origin.baseURL)/shared")
        _ = try await context.check(first, with: poller)
        _ = try await context.check(first, with: poller)
        #expect(try context.reload(first).fetchStatistics.requests == 2)

        let second = try context.watch(user: try context.user(), url: "\(origin.baseURL)/shared")
        #expect(second.targetID == first.targetID)
        #expect(second.fetchStatistics == FetchStatistics(requests: 0, notModified: 0, bytesReceived: 0, bytesSaved: 0))
        _ = try await context.check(second, with: poller)
        #expect(try context.reload(second).fetchStatistics.requests == 1)
        #expect(try context.reload(first).fetchStatistics.requests == 3)

        // An edit that moves a watch onto the shared target starts it at
        // zero there too; one that does not move it keeps its counts.
        let third = try context.watch(user: try context.user(), url: "\(origin.baseURL)/elsewhere")
        _ = try await context.check(third, with: poller)
        let renamed = try #require(try context.watches.update(userID: third.userID, id: third.id) { $0.name = "renamed" })
        #expect(renamed.fetchStatistics.requests == 1)
        let moved = try #require(
            try context.watches.update(userID: third.userID, id: third.id) {
                $0.url = try URLNormalizer.normalize("\(origin.baseURL)/shared")
            })
        #expect(moved.targetID == first.targetID)
        #expect(moved.fetchStatistics == FetchStatistics(requests: 0, notModified: 0, bytesReceived: 0, bytesSaved: 0))
    }

    @Test func lastModifiedPathSendsTheServersOwnValue() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["page"] = "first"
        script["modified"] = "Tue, 15 Nov 1994 12:45:26 GMT"
        let origin = try TestOriginServer { request in
            script.record(request)
            let modified = script["modified"]!
            if request.header("If-Modified-Since") == modified { return TestResponse(status: 304) }
            return TestResponse(status: 200, headers: [("Last-Modified", modified)], body: Array(script["page"]!.utf8))
        }
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/")

        #expect(try await context.check(watch, with: poller).result == .baseline)
        #expect(try await context.check(watch, with: poller).result == .notModified)
        // Exactly the stored value, not a date the poller made up.
        #expect(script.requests.last?.headers.first { $0.name == "If-Modified-Since" }?.value == "Tue, 15 Nov 1994 12:45:26 GMT")
        #expect(!(script.requests.last?.headers.contains { $0.name == "If-None-Match" } ?? true))

        script["page"] = "second"
        script["modified"] = "Wed, 16 Nov 1994 12:45:26 GMT"
        #expect(try await context.check(watch, with: poller).result == .changed)
    }

    @Test func versionEndpointKeepsThePageUnfetchedWhileTheVersionStands() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["version"] = "1"
        script["page"] = "release one"
        let origin = try TestOriginServer { request in
            script.record(request)
            if request.path == "/version.json" {
                return TestResponse(
                    status: 200, headers: [("Content-Type", "application/json")],
                    body: Array(#"{"build": {"id": \#(script["version"]!)}, "at": "\#(UUID())"}"#.utf8))
            }
            return .text(script["page"]!)
        }
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let watch = try context.watch(
            user: try context.user(), url: "\(origin.baseURL)/page",
            version: ("\(origin.baseURL)/version.json", "/build/id"))

        #expect(try await context.check(watch, with: poller).result == .baseline)
        #expect(script.requestCount(path: "/page") == 1)
        for _ in 0..<3 {
            #expect(try await context.check(watch, with: poller).result == .versionUnchanged)
        }
        #expect(script.requestCount(path: "/page") == 1)
        #expect(script.requestCount(path: "/version.json") == 4)

        script["version"] = "2"
        script["page"] = "release two"
        #expect(try await context.check(watch, with: poller).result == .changed)
        #expect(script.requestCount(path: "/page") == 2)
        #expect(try await context.check(watch, with: poller).result == .versionUnchanged)
    }

    @Test func pageWithoutValidatorsIsFetchedAndHashedEveryTime() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["page"] = "same text"
        let origin = try TestOriginServer { request in
            script.record(request)
            return .text(script["page"]!)
        }
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/")

        #expect(try await context.check(watch, with: poller).result == .baseline)
        #expect(try await context.check(watch, with: poller).result == .unchanged)
        #expect(!script.requests.contains { $0.headers.contains { $0.name.hasPrefix("If-") } })
        script["page"] = "other text"
        #expect(try await context.check(watch, with: poller).result == .changed)
        #expect(try await context.check(watch, with: poller).result == .unchanged)
        #expect(try context.changeCount(of: watch) == 1)
    }

    @Test func noisyPageWithAStableSelectedElementReportsNoChange() async throws {
        let context = try PollerTestContext()
        let origin = try TestOriginServer { _ in
            TestResponse(
                status: 200, headers: [("Content-Type", "text/html")],
                body: Array(
                    """
                    <html><body><div class="clock">Generated \(Date().timeIntervalSince1970) \(UUID())</div>
                    <div id="news"><h2>Headline</h2><p>Stable story.</p></div></body></html>
                    """.utf8))
        }
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let user = try context.user()
        let selected = try context.watch(user: user, url: "\(origin.baseURL)/", extract: ExtractionRule(selector: .css("#news p")))
        let whole = try context.watch(user: user, url: "\(origin.baseURL)/")
        #expect(selected.targetID == whole.targetID)

        #expect(try await context.check(selected, with: poller).result == .baseline)
        let second = try #require(try await context.onThread { try poller.checkNow(targetID: selected.targetID) })
        #expect(second[selected.id]?.result == .unchanged)
        // The whole page carries the timestamp: it changes on every fetch.
        #expect(second[whole.id]?.result == .changed)
        #expect(try context.changeCount(of: selected) == 0)
    }

    @Test func ignorePatternsRemoveVolatileText() async throws {
        let context = try PollerTestContext()
        let origin = try TestOriginServer { _ in
            .text("Price 10 EUR. Request id \(UUID().uuidString). Served at \(Date().timeIntervalSince1970)")
        }
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let rule = ExtractionRule(selector: .css("body"), ignorePatterns: [#"Request id [0-9A-F-]+\."#, #"Served at [0-9.]+"#])
        let user = try context.user()
        let updated = try context.watch(user: user, url: "\(origin.baseURL)/", extract: rule)
        let unfiltered = try context.watch(user: user, url: "\(origin.baseURL)/", extract: ExtractionRule(selector: .css("body")))

        #expect(try await context.check(updated, with: poller).result == .baseline)
        #expect(try await context.check(updated, with: poller).result == .unchanged)
        #expect(try await context.check(updated, with: poller).result == .unchanged)
        #expect(try context.changeCount(of: updated) == 0)
        // The same text without the patterns changes every time.
        #expect(try context.changeCount(of: unfiltered) == 2)
    }

    @Test func failingAndRecoveredAreAnnouncedOnceEach() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["status"] = "200"
        let origin = try TestOriginServer { request in
            script.record(request)
            return .text("content", status: Int(script["status"]!)!)
        }
        let poller = try context.poller { $0.failureThreshold = 3 }
        defer { poller.stop(); origin.stop(); context.close() }
        let user = try context.user()
        let watch = try context.watch(user: user, url: "\(origin.baseURL)/")

        #expect(try await context.check(watch, with: poller).result == .baseline)
        script["status"] = "500"
        var states: [WatchState] = []
        for _ in 0..<5 {
            let result = try await context.check(watch, with: poller)
            #expect(result.result == .failed)
            #expect(result.error == "the server answered HTTP 500")
            states.append(result.state)
        }
        #expect(states == [.ok, .ok, .failing, .failing, .failing])
        #expect(try context.events(of: user, type: "watch.failing").count == 1)
        #expect(try context.events(of: user, type: "watch.recovered").isEmpty)

        script["status"] = "200"
        #expect(try await context.check(watch, with: poller).state == .ok)
        #expect(try await context.check(watch, with: poller).state == .ok)
        #expect(try context.events(of: user, type: "watch.failing").count == 1)
        let recovered = try context.events(of: user, type: "watch.recovered")
        #expect(recovered.count == 1)
        #expect(recovered.first?.contains(watch.id.uuidString.lowercased()) == true)
        #expect(try context.reload(watch).consecutiveFailures == 0)
    }

    @Test func oversizedResponseFailsTheCheckWithAClearMessage() async throws {
        let context = try PollerTestContext()
        let origin = try TestOriginServer { _ in
            TestResponse(status: 200, headers: [], body: Array(repeating: UInt8(ascii: "x"), count: 8192), chunked: true)
        }
        let poller = try context.poller(maxResponseSize: 4096)
        defer { poller.stop(); origin.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/")

        let result = try await context.check(watch, with: poller)
        #expect(result.result == .failed)
        #expect(result.error == "response_too_large: response exceeded 4096 bytes")
        #expect(try context.reload(watch).lastError == result.error)
    }

    @Test func redirectToABlockedAddressIsRefused() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try TestOriginServer { request in
            script.record(request)
            return .redirect(to: "http://127.0.0.2:\(script["port"]!)/internal")
        }
        script["port"] = String(origin.port)
        // Only 127.0.0.1 (the origin) is reachable; 127.0.0.2 stays blocked.
        let poller = try context.poller(allowPrivateTargets: false, allowedAddresses: [try #require(IPAddress("127.0.0.1"))])
        defer { poller.stop(); origin.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/")

        let result = try await context.check(watch, with: poller)
        #expect(result.result == .failed)
        // The owner learns it was refused, not which address or range.
        #expect(result.error == "blocked_address: the target is not allowed: its address is not publicly reachable")
        #expect(try context.reload(watch).lastError == result.error)
        #expect(script.requests.count == 1)
        #expect(try context.reload(watch).contentHash == nil)
    }

    /// libcurl's own text names the address it tried ("Failed to connect to
    /// 127.0.0.1 port ..."): what is stored for the owner does not.
    @Test func connectionFailuresNameNoAddress() async throws {
        let context = try PollerTestContext()
        let closed = try TestOriginServer { _ in .text("") }
        let port = closed.port
        closed.stop()
        let poller = try context.poller()
        defer { poller.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "http://127.0.0.1:\(port)/")

        let result = try await context.check(watch, with: poller)
        #expect(result.result == .failed)
        #expect(result.error == "connection_failed: could not connect to the host")
        #expect(try context.reload(watch).lastError == result.error)
    }

    @Test func everyNthCheckIsUnconditional() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["page"] = "stable"
        let origin = try Self.etagOrigin(script)
        let poller = try context.poller { $0.unconditionalEvery = 3 }
        defer { poller.stop(); origin.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/")

        var results: [CheckResult] = []
        for _ in 0..<7 { results.append(try await context.check(watch, with: poller).result) }
        // The counter restarts at every full fetch: two conditional checks, then one without validators.
        #expect(results == [.baseline, .notModified, .notModified, .unchanged, .notModified, .notModified, .unchanged])
        #expect(script.requests.filter { !$0.headers.contains { $0.name == "If-None-Match" } }.count == 3)
    }

    @Test func changingTheExtractionRuleDropsTheValidators() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["page"] = "<p class='a'>A</p><p class='b'>B</p>"
        let origin = try Self.etagOrigin(script)
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/", extract: ExtractionRule(selector: .css(".a")))

        #expect(try await context.check(watch, with: poller).result == .baseline)
        #expect(try await context.check(watch, with: poller).result == .notModified)
        let updated = try #require(
            try context.watches.update(userID: watch.userID, id: watch.id) {
                $0.extract = ExtractionRule(selector: .css(".b"))
            })
        #expect(try await context.check(updated, with: poller).result == .baseline)
        #expect(!(script.requests.last?.headers.contains { $0.name == "If-None-Match" } ?? true))
    }
}
