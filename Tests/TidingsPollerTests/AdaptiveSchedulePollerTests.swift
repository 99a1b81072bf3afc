import Foundation
import Testing
import TidingsDomain
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// The adaptive schedule end to end (decision 0028): real checks against a
/// loopback origin write `next_check_at` and `content_changed_at`. The
/// time the content has stayed the same is set in the database rather than
/// waited for; assertions are on the times written, with the 10 % jitter
/// and a few seconds of slack.
@Suite(.serialized) struct AdaptiveSchedulePollerTests {
    /// A page with an ETag, answering 304 to a matching If-None-Match, and
    /// the scripted Cache-Control header on every answer.
    private static func origin(_ script: OriginScript) throws -> TestOriginServer {
        try TestOriginServer { request in
            script.record(request)
            let page = script["page"] ?? ""
            let etag = "\"\(page.utf8.count)-\(abs(page.hashValue % 100_000))\""
            var headers = [("ETag", etag)]
            if let cacheControl = script["cache-control"] { headers.append(("Cache-Control", cacheControl)) }
            if request.header("If-None-Match") == etag { return TestResponse(status: 304, headers: headers) }
            return TestResponse(status: 200, headers: headers + [("Content-Type", "text/html")], body: Array(page.utf8))
        }
    }

    private struct Schedule {
        /// Seconds from the database's now to the target's next check.
        let dueIn: Double
        /// Seconds since the content last changed, as stored.
        let unchangedFor: Double
    }

    private func schedule(_ watch: Watch, _ context: PollerTestContext) throws -> Schedule {
        let row = try context.database.query(
            """
            SELECT extract(epoch FROM next_check_at - now())::float8 AS due_in,
                   extract(epoch FROM now() - content_changed_at)::float8 AS unchanged_for
            FROM targets WHERE id = \(watch.targetID)
            """
        ).single()
        return Schedule(dueIn: try row.decode("due_in"), unchangedFor: try row.decode("unchanged_for"))
    }

    /// As if the last change had been seen `seconds` ago.
    private func setUnchanged(for seconds: Int, _ watch: Watch, _ context: PollerTestContext) throws {
        _ = try context.database.query(
            """
            UPDATE targets SET content_changed_at = now() - make_interval(secs => \(seconds)) WHERE id = \(watch.targetID)
            """)
    }

    private func adaptiveWatch(_ context: PollerTestContext, url: String, interval: Int, maximum: Int) throws -> Watch {
        let settings = WatchSettings(
            url: try URLNormalizer.normalize(url),
            intervalSeconds: interval,
            maxIntervalSeconds: maximum,
            maxIntervalChosen: true
        )
        return try context.watches.create(userID: try context.user(), settings: settings)
    }

    @Test func unchangedContentBacksOffAndAChangeReturnsToTheInterval() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["page"] = "<p>Release 1.0</p>"
        let origin = try Self.origin(script)
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let watch = try adaptiveWatch(context, url: "\(origin.baseURL)/releases", interval: 60, maximum: 3600)

        #expect(try await context.check(watch, with: poller).result == .baseline)
        let baseline = try schedule(watch, context)
        #expect((50...61).contains(baseline.dueIn), "a new target starts at the interval: \(baseline.dueIn)")

        // Unchanged for 1000 s: a tenth of it.
        try setUnchanged(for: 1000, watch, context)
        #expect(try await context.check(watch, with: poller).result == .notModified)
        let tenth = try schedule(watch, context)
        #expect((85...101).contains(tenth.dueIn), "\(tenth.dueIn)")
        #expect(tenth.unchangedFor >= 999, "a 304 leaves the time of the last change")

        // Unchanged for a day: capped at the maximum.
        try setUnchanged(for: 86_400, watch, context)
        #expect(try await context.check(watch, with: poller).result == .notModified)
        let capped = try schedule(watch, context)
        #expect((3200...3601).contains(capped.dueIn), "\(capped.dueIn)")

        // The change: back to the interval, and the back-off starts over.
        script["page"] = "<p>Release 1.1</p>"
        #expect(try await context.check(watch, with: poller).result == .changed)
        let changed = try schedule(watch, context)
        #expect((50...61).contains(changed.dueIn), "\(changed.dueIn)")
        #expect(changed.unchangedFor < 30, "\(changed.unchangedFor)")

        // An unchanged full fetch (no validators this time) counts as unchanged.
        try setUnchanged(for: 86_400, watch, context)
        script["page"] = "<p>Release 1.1</p>"
        _ = try context.database.query("UPDATE targets SET etag = NULL WHERE id = \(watch.targetID)")
        #expect(try await context.check(watch, with: poller).result == .unchanged)
        #expect((3200...3601).contains(try schedule(watch, context).dueIn))
    }

    @Test func maximumEqualToTheIntervalNeverBacksOffWhateverTheHeaders() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["page"] = "<p>Status: fine</p>"
        script["cache-control"] = "public, max-age=86400"
        let origin = try Self.origin(script)
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/status", interval: 60)
        #expect(watch.maxIntervalSeconds == 60)

        _ = try await context.check(watch, with: poller)
        try setUnchanged(for: 86_400 * 30, watch, context)
        #expect(try await context.check(watch, with: poller).result == .notModified)
        let due = try schedule(watch, context).dueIn
        #expect((50...61).contains(due), "\(due)")
    }

    @Test func cacheLifetimeLengthensTheDelayUpToTheMaximum() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["page"] = "<p>Feed</p>"
        script["cache-control"] = "max-age=1200"
        let origin = try Self.origin(script)
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let watch = try adaptiveWatch(context, url: "\(origin.baseURL)/feed", interval: 60, maximum: 900)
        let wide = try adaptiveWatch(context, url: "\(origin.baseURL)/feed-wide", interval: 60, maximum: 3600)

        _ = try await context.check(watch, with: poller)
        let capped = try schedule(watch, context).dueIn
        #expect((800...901).contains(capped), "max-age 1200 s, held to the watch's 900 s: \(capped)")
        _ = try await context.check(wide, with: poller)
        let honoured = try schedule(wide, context).dueIn
        #expect((1070...1201).contains(honoured), "max-age 1200 s honoured: \(honoured)")

        // no-cache: no lower bound, the interval again (content just seen).
        script["cache-control"] = "no-cache, max-age=1200"
        _ = try await context.check(wide, with: poller)
        let revalidate = try schedule(wide, context).dueIn
        #expect((50...61).contains(revalidate), "\(revalidate)")
    }

    @Test func failuresKeepTheTimeOfTheLastChange() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["page"] = "<p>Up</p>"
        let origin = try Self.origin(script)
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let watch = try adaptiveWatch(context, url: "\(origin.baseURL)/up", interval: 60, maximum: 3600)
        _ = try await context.check(watch, with: poller)
        try setUnchanged(for: 5000, watch, context)
        origin.stop()
        #expect(try await context.check(watch, with: poller).result == .failed)
        #expect(try schedule(watch, context).unchangedFor >= 4999)
    }
}
