import Foundation
import Testing
import TidingsCrypto
import TidingsDomain
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// Readable comparison by default, the raw rule, the unchanged-body skip
/// and the quiet re-baseline (decision 0027), through `Poller.checkNow`
/// against loopback origins and a real database.
@Suite(.serialized) struct ReadableContentTests {
    /// An HTML page without validators whose script carries a fresh nonce
    /// and timestamp on every request, like pages that render per request.
    private static func nonceOrigin(_ script: OriginScript) throws -> TestOriginServer {
        try script.origin { _ in
            let page = """
                <html><head><title>Shop</title><script>window.t = { nonce: "\(UUID())", at: \(Date().timeIntervalSince1970) };</script></head>
                <body><form><input type="hidden" name="csrf" value="\(UUID())"></form>
                <main><h1>Offer</h1><p>\(script["price"] ?? "Price: 10 EUR")</p><p>Second line.</p></main></body></html>
                """
            return TestResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(page.utf8))
        }
    }

    private func updatedAt(_ watch: Watch, _ context: PollerTestContext) throws -> String {
        try context.database.query("SELECT updated_at::text AS at FROM watches WHERE id = \(watch.id)")[0].decode("at")
    }

    @Test func aScriptChangeIsNoChangeButTheRawRuleSeesIt() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try Self.nonceOrigin(script)
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let user = try context.user()
        let readable = try context.watch(user: user, url: "\(origin.baseURL)/")
        let raw = try context.watch(user: user, url: "\(origin.baseURL)/", extract: ExtractionRule(selector: .raw))
        let selected = try context.watch(user: user, url: "\(origin.baseURL)/", extract: ExtractionRule(selector: .css("main")))

        let first = try #require(try await context.onThread { try poller.checkNow(targetID: readable.targetID) })
        #expect(first.values.allSatisfy { $0.result == .baseline })
        let updated = try updatedAt(readable, context)
        for _ in 0..<2 {
            let next = try #require(try await context.onThread { try poller.checkNow(targetID: readable.targetID) })
            #expect(next[readable.id]?.result == .unchanged)
            #expect(next[selected.id]?.result == .unchanged)
            #expect(next[raw.id]?.result == .changed)
        }
        #expect(try context.changeCount(of: readable) == 0)
        #expect(try context.changeCount(of: selected) == 0)
        #expect(try context.changeCount(of: raw) == 2)
        // Unchanged content is a quiet write: the watch row is not rewritten.
        #expect(try updatedAt(readable, context) == updated)
        let snapshot: String = try context.database.query("SELECT snapshot FROM watches WHERE id = \(readable.id)")[0].decode("snapshot")
        #expect(snapshot == "Shop\nOffer\nPrice: 10 EUR\nSecond line.")
    }

    @Test func aVisibleChangeGivesADiffThatReadsLikeThePage() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try Self.nonceOrigin(script)
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let user = try context.user()
        let watch = try context.watch(user: user, url: "\(origin.baseURL)/")

        #expect(try await context.check(watch, with: poller).result == .baseline)
        script["price"] = "Price: 12 EUR"
        #expect(try await context.check(watch, with: poller).result == .changed)
        let diff = try #require(try context.change(of: watch)).diff
        #expect(diff.contains("\n Offer\n-Price: 10 EUR\n+Price: 12 EUR\n Second line.\n"), "\(diff)")
        #expect(!diff.contains("nonce"))
        #expect(try context.events(of: user, type: "watch.changed").count == 1)
    }

    @Test func anUnchangedBodyIsNotParsedAgain() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["page"] = "<html><body><h1>Static</h1><p class='x'>Text</p></body></html>"
        let origin = try script.origin { _ in
            TestResponse(status: 200, headers: [("Content-Type", "text/html")], body: Array(script["page"]!.utf8))
        }
        let metrics = MetricsRegistry()
        let poller = try context.poller(metrics: metrics)
        defer { poller.stop(); origin.stop(); context.close() }
        let skipped = metrics.counter("tidings_poller_unchanged_bodies_total", help: "")
        let user = try context.user()
        let first = try context.watch(user: user, url: "\(origin.baseURL)/")

        #expect(try await context.check(first, with: poller).result == .baseline)
        #expect(skipped.value() == 0)
        #expect(try await context.check(first, with: poller).result == .unchanged)
        #expect(try await context.check(first, with: poller).result == .unchanged)
        #expect(skipped.value() == 2)

        // A watch joining the target has no baseline: the same body is
        // extracted again for it.
        let second = try context.watch(user: try context.user(), url: "\(origin.baseURL)/", extract: ExtractionRule(selector: .css(".x")))
        #expect(second.targetID == first.targetID)
        let joined = try #require(try await context.onThread { try poller.checkNow(targetID: first.targetID) })
        #expect(joined[second.id]?.result == .baseline)
        #expect(joined[first.id]?.result == .unchanged)
        #expect(skipped.value() == 2)
        #expect(try await context.check(second, with: poller).result == .unchanged)
        #expect(skipped.value() == 3)

        // So does a changed rule.
        let edited = try #require(
            try context.watches.update(userID: second.userID, id: second.id) { $0.extract = ExtractionRule(selector: .css("h1")) })
        #expect(try await context.check(edited, with: poller).result == .baseline)
        #expect(skipped.value() == 3)

        // And a changed body is compared as usual.
        script["page"] = "<html><body><h1>Static</h1><p class='x'>New text</p></body></html>"
        let changed = try #require(try await context.onThread { try poller.checkNow(targetID: first.targetID) })
        #expect(changed[first.id]?.result == .changed)
        #expect(changed[second.id]?.result == .unchanged)
        #expect(skipped.value() == 3)
    }

    /// Migration 0023 marks every watch with a baseline; its next full
    /// check takes the readable hash as a new baseline, announcing nothing.
    @Test func aMigratedWatchIsRebaselinedQuietly() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["page"] = "<html><body><script>track()</script><p>Hello</p></body></html>"
        let origin = try script.origin { request in
            if request.header("If-None-Match") == "\"v1\"" { return TestResponse(status: 304) }
            return TestResponse(
                status: 200, headers: [("Content-Type", "text/html"), ("ETag", "\"v1\"")], body: Array(script["page"]!.utf8))
        }
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let user = try context.user()
        let watch = try context.watch(user: user, url: "\(origin.baseURL)/")
        #expect(try await context.check(watch, with: poller).result == .baseline)
        let readableHash = try #require(try context.reload(watch).contentHash)

        // The row as the migration leaves it: the old whole-body hash, the
        // mark, no body hash on the target.
        let oldHash = SHA256.hash(WhitespaceNormalizerReference.oneLine(script["page"]!)).hex
        #expect(oldHash != readableHash)
        try context.execute(
            """
            UPDATE watches SET content_hash = \(oldHash), snapshot = \(script["page"]!), quiet_rebaseline = true WHERE id = \(watch.id)
            """)
        try context.execute("UPDATE targets SET body_sha256 = NULL WHERE id = \(watch.targetID)")

        // A 304 keeps the mark: there is nothing to compare.
        #expect(try await context.check(watch, with: poller).result == .notModified)
        script["page"] = "<html><body><script>track(2)</script><p>Hello</p></body></html>"
        try context.execute("UPDATE targets SET etag = NULL WHERE id = \(watch.targetID)")
        let rebaselined = try await context.check(watch, with: poller)
        #expect(rebaselined.result == .baseline)
        #expect(rebaselined.changeID == nil)
        let reloaded = try context.reload(watch)
        #expect(reloaded.contentHash == readableHash)
        #expect(reloaded.unreadCount == 0)
        #expect(try context.changeCount(of: watch) == 0)
        #expect(try context.events(of: user, type: "watch.changed").isEmpty)
        let marked: Bool = try context.database.query("SELECT quiet_rebaseline FROM watches WHERE id = \(watch.id)")[0].decode(
            "quiet_rebaseline")
        #expect(!marked)

        // From then on changes count again.
        script["page"] = "<html><body><p>Goodbye</p></body></html>"
        try context.execute("UPDATE targets SET etag = NULL WHERE id = \(watch.targetID)")
        #expect(try await context.check(watch, with: poller).result == .changed)
        #expect(try context.events(of: user, type: "watch.changed").count == 1)
    }
}

/// The one-line normalization every watch without a rule hashed before
/// migration 0023 (whitespace runs to one space, trimmed).
private enum WhitespaceNormalizerReference {
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

extension PollerTestContext {
    fileprivate func execute(_ query: PostgresQuery) throws {
        _ = try database.withConnection { connection in try connection.execute(query) }
    }
}
