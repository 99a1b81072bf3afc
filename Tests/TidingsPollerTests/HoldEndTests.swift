import Foundation
import Testing
import TidingsDomain
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// Every hold that ends is announced on `tidings_holds_ended`, and its
/// holder drops the copy it would have checked (decision 0064).
@Suite struct HoldEndTests {
    /// Each way a hold ends announces the target once; the holder's own
    /// result write, which keeps the hold, announces nothing.
    @Test func everyWayAHoldEndsIsAnnouncedAndOnlyThose() throws {
        let context = try PollerTestContext()
        defer { context.close() }
        let store = CheckStore(database: context.database, failureThreshold: 3)
        let user = try context.user()
        let watch = try context.watch(user: user, url: "https://93.184.215.14/held", interval: 120)
        let listener = try PostgresListener(configuration: context.database.configuration, channels: [HoldEndListener.channel])
        let target = watch.targetID.canonicalString

        func execute(_ sql: String) throws {
            try context.database.withConnection { try $0.execute(unsafeSQL: sql) }
        }
        /// Claims the target as "a" (from whoever leased it) and writes a
        /// quiet result that keeps it held; the reset announces the end
        /// of a hold there was.
        func hold() throws {
            let wasHeld: Bool = try context.database.query("SELECT lease_held FROM targets WHERE id = \(watch.targetID)")[0]
                .decode("lease_held")
            try execute(
                """
                UPDATE targets SET next_check_at = now() - interval '1 second', lease_owner = NULL, lease_until = NULL,
                    lease_held = false
                WHERE id = '\(target)'
                """)
            #expect(try store.claimDue(owner: "a", limit: 10, lease: .seconds(60)).map(\.id) == [watch.targetID])
            var record = TargetCheckRecord(targetID: watch.targetID, checkedAt: Date(), nextCheckAt: Date().addingTimeInterval(600))
            record.keepsHold = true
            record.underHold = false
            #expect(try store.writeQuiet(owner: "a", targets: [record], watches: []) == [watch.targetID])
            // And again under the hold: the holder's own writes.
            record.underHold = true
            record.nextCheckAt = Date().addingTimeInterval(700)
            #expect(try store.writeQuiet(owner: "a", targets: [record], watches: []) == [watch.targetID])
            #expect(try announced(expecting: wasHeld ? 1 : 0) == (wasHeld ? [target] : []), "claiming and holding announce nothing")
        }
        /// What arrives until `count` did (or 10 s passed), and in one
        /// slice more, which finds any that should not have come.
        func announced(expecting count: Int) throws -> [String] {
            var received: [PostgresNotification] = []
            let deadline = ContinuousClock.now + .seconds(10)
            while received.count < count, ContinuousClock.now < deadline {
                received += try listener.wait(timeout: .milliseconds(100))
            }
            received += try listener.wait(timeout: .milliseconds(300))
            return received.map(\.payload)
        }

        try hold()
        try hold()

        let ends: [(String, () throws -> Void)] = [
            ("an outside write", { try execute("UPDATE targets SET next_check_at = now() WHERE id = '\(target)'") }),
            ("a watch paused", { _ = try context.watches.setPaused(true, userID: user, id: watch.id) }),
            ("a check asked for", { _ = try store.claim(targetID: watch.targetID, owner: "b", lease: .seconds(60)) }),
            ("a release", { try store.release(owner: "a", targetIDs: [watch.targetID]) }),
            ("a release of all", { _ = try store.releaseAll(owner: "a") }),
        ]
        for (name, end) in ends {
            try hold()
            try end()
            #expect(try announced(expecting: 1) == [target], "\(name)")
            if name == "a watch paused" { _ = try context.watches.setPaused(false, userID: user, id: watch.id) }
        }

        try hold()
        #expect(try context.watches.delete(userID: user, id: watch.id))
        #expect(try announced(expecting: 1) == [target], "the target deleted with its last watch")
    }

    /// A target taken over by another replica while this poller held it
    /// is not fetched again here from the copy of it this poller kept.
    @Test func aHolderThatHearsItsHoldEndFetchesNothingFromItsCopy() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try script.origin { _ in .text("page") }
        let metrics = MetricsRegistry()
        let poller = try context.poller(concurrency: 4, metrics: metrics)
        defer { poller.stop(); origin.stop(); context.close() }
        let refused = metrics.counter("tidings_poller_writes_refused_total", help: "")
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/page", interval: 3)

        // The baseline, then an unchanged check read from the row: its
        // quiet write keeps a copy for the next check, 3 s later.
        #expect(try await eventually(timeout: .seconds(20)) { try context.reload(watch).lastCheckResult == .unchanged })
        #expect(script.requests.count == 2)
        let dueAt: Date = try context.database.query("SELECT next_check_at FROM targets WHERE id = \(watch.targetID)")[0]
            .decode("next_check_at")
        // Another replica takes the target over (a check asked for through
        // its API) and holds its lease for long.
        let other = CheckStore(database: context.database, failureThreshold: 3)
        #expect(try other.claim(targetID: watch.targetID, owner: "other-replica", lease: .seconds(600)) != nil)

        // Past the copy's time: nothing was fetched for it.
        let waitUntil = dueAt.addingTimeInterval(3)
        while Date() < waitUntil { try await Task.sleep(for: .milliseconds(100)) }
        #expect(script.requests.count == 2, "the stale copy was checked")
        #expect(refused.value() == 0)
    }

    /// What it cannot read as a target drops every copy rather than
    /// guess, and so does losing its session: the checks after either
    /// read their targets (copies otherwise never run out here: the pages
    /// do not change), then take copies again.
    @Test func anUnreadableAnnouncementOrALostSessionDropsEveryCopy() async throws {
        let context = try PollerTestContext()
        let origin = try TestOriginServer { _ in .text("page") }
        let metrics = MetricsRegistry()
        let poller = try context.poller(concurrency: 4, metrics: metrics)
        defer { poller.stop(); origin.stop(); context.close() }
        let held = metrics.counter("tidings_poller_held_checks_total", help: "")
        for index in 0..<3 { _ = try context.watch(user: try context.user(), url: "\(origin.baseURL)/\(index)", interval: 1) }
        // Unchanged pages: after each target's first read, only copies.
        #expect(try await eventually(timeout: .seconds(20)) { held.value(labels: ["source": "copy"]) >= 6 })

        let disruptions = [
            "SELECT pg_notify('\(HoldEndListener.channel)', 'not a target')",
            "SELECT pg_notify('\(HoldEndListener.channel)', repeat('x', 7999))",
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
        ]
        for disruption in disruptions {
            let (reads, copies) = (held.value(labels: ["source": "read"]), held.value(labels: ["source": "copy"]))
            try context.database.withConnection { try $0.execute(unsafeSQL: disruption) }
            // A target in flight at the drop keeps the fresh copy its
            // write leaves; the others are read. Without a drop, none is.
            #expect(try await eventually(timeout: .seconds(20)) { held.value(labels: ["source": "read"]) > reads }, "\(disruption)")
            #expect(try await eventually(timeout: .seconds(20)) { held.value(labels: ["source": "copy"]) > copies + 3 }, "\(disruption)")
        }
    }
}
