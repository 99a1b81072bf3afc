import Foundation
import Testing
import TidingsDomain
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// A written target stays held by the poller that wrote it (decision 0057)
/// and leaves the database's walk of due targets (decision 0058): its
/// holder reads it by id, without a write, when it falls due, and its
/// result writes are HOT updates; other pollers leave it; a check asked for
/// through the API takes it over; moving its next check earlier ends the
/// hold; shutdown gives holds back.
@Suite struct TargetHoldTests {
    private struct Fixture {
        let context: PollerTestContext
        let store: CheckStore
        let watch: Watch

        init() throws {
            context = try PollerTestContext()
            store = CheckStore(database: context.database, failureThreshold: 3, holdGrace: .seconds(30))
            watch = try context.watch(user: try context.user(), url: "https://93.184.215.14/held")
        }

        /// Writes a quiet result as `owner`, due again `dueIn` from now, for
        /// a check started under a hold (`underHold`) or a lease; by
        /// default as the row stands now, as its next result would be.
        @discardableResult
        func writeQuiet(owner: String, keepsHold: Bool = true, dueIn: TimeInterval = -1, underHold: Bool? = nil) throws -> Bool {
            var record = TargetCheckRecord(targetID: watch.targetID, checkedAt: Date(), nextCheckAt: Date().addingTimeInterval(dueIn))
            record.keepsHold = keepsHold
            record.underHold = try underHold ?? row().held
            return try store.writeQuiet(owner: owner, targets: [record], watches: []) == [watch.targetID]
        }

        func readHeld(owner: String) throws -> (due: [ClaimedTarget], later: [(id: UUID, nextCheckAt: Date)]) {
            try store.readHeld(owner: owner, ids: [watch.targetID])
        }

        struct Row: Equatable {
            let owner: String?
            let held: Bool
            let version: String
            let holdPastDue: Int?
            let claimAtInfinity: Bool
        }

        /// The target's lease columns and row version (ctid and xmin: a new
        /// version of the row changes both).
        func row() throws -> Row {
            let row = try context.database.query(
                """
                SELECT lease_owner, lease_held, ctid::text || '/' || xmin::text AS version,
                       round(extract(epoch FROM lease_until - next_check_at))::int AS hold_past_due,
                       claim_at = 'infinity' AS claim_at_infinity
                FROM targets WHERE id = \(watch.targetID)
                """)[0]
            return Row(
                owner: try row.decode("lease_owner"), held: try row.decode("lease_held"), version: try row.decode("version"),
                holdPastDue: try row.decode("hold_past_due"), claimAtInfinity: try row.decode("claim_at_infinity"))
        }

        /// Entries in the one leaf page of the targets' primary key, dead
        /// ones included: a non-HOT update adds one, a HOT update none.
        func primaryKeyEntries() throws -> Int {
            try context.database.withConnection { connection in
                try connection.execute("CREATE EXTENSION IF NOT EXISTS pageinspect")
                return try connection.query("SELECT count(*)::int AS n FROM bt_page_items('targets_pkey', 1)")[0].decode("n")
            }
        }
    }

    @Test func aWrittenTargetLeavesTheWalkAndIsReadNotWrittenByItsHolder() throws {
        let fixture = try Fixture()
        defer { fixture.context.close() }
        let leased = try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60))
        #expect(leased.map(\.id) == [fixture.watch.targetID])
        #expect(leased.map(\.isHeld) == [false])
        #expect(try fixture.row().claimAtInfinity == false)
        try fixture.writeQuiet(owner: "a")
        let held = try fixture.row()
        #expect(held.owner == "a" && held.held && held.claimAtInfinity)
        #expect(held.holdPastDue == 30)

        #expect(try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60)).isEmpty, "held: not in the walk")
        #expect(try fixture.store.claimDue(owner: "b", limit: 10, lease: .seconds(60)).isEmpty)
        let read = try fixture.readHeld(owner: "a")
        #expect(read.due.map(\.id) == [fixture.watch.targetID])
        #expect(read.due.map(\.isHeld) == [true])
        #expect(read.due.first?.watches.map(\.id) == [fixture.watch.id])
        #expect(read.later.isEmpty)
        #expect(try fixture.row() == held, "reading a held target writes no new row version")
        #expect(try fixture.readHeld(owner: "b").due.isEmpty, "only its holder reads it")
    }

    @Test func aHeldTargetsResultWritesAreHOTUpdates() throws {
        let fixture = try Fixture()
        defer { fixture.context.close() }
        _ = try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60))
        let leased = try fixture.primaryKeyEntries()
        try fixture.writeQuiet(owner: "a", dueIn: 60)
        let held = try fixture.primaryKeyEntries()
        #expect(held == leased + 1, "taking the hold moves the target out of the walk: a new index entry")
        for step in 1...5 { try fixture.writeQuiet(owner: "a", dueIn: 60 + Double(step)) }
        #expect(try fixture.row().held)
        #expect(try fixture.primaryKeyEntries() == held, "no write of a held target adds an index entry")
        try fixture.writeQuiet(owner: "a", keepsHold: false)
        #expect(try fixture.primaryKeyEntries() == held + 1, "giving it back does: the walk finds it again")
    }

    @Test func aHoldEndsWhenAnythingButItsHolderWritesTheTarget() throws {
        let fixture = try Fixture()
        defer { fixture.context.close() }
        func holdAgain() throws {
            #expect(try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60)).map(\.id) == [fixture.watch.targetID])
            #expect(try fixture.writeQuiet(owner: "a", dueIn: 600))
            #expect(try fixture.row().held)
        }
        func update(_ set: String) throws {
            try fixture.context.database.withConnection {
                try $0.execute(unsafeSQL: "UPDATE targets SET \(set) WHERE id = '\(fixture.watch.targetID.canonicalString)'")
            }
        }
        // Each would leave the holder's copy or schedule wrong: the check
        // put off or moved earlier, validators dropped for a new watch's
        // baseline, headers sealed again. The target goes back to the walk
        // at its next check.
        let writes = [
            "next_check_at = next_check_at + interval '1 hour'", "next_check_at = now()",
            "etag = NULL, last_modified = NULL, last_version = NULL", "headers = headers",
        ]
        for write in writes {
            try update("next_check_at = now() - interval '1 second'")
            try holdAgain()
            let before = try fixture.row().version
            try update(write)
            let ended = try fixture.row()
            #expect(ended.owner == nil && !ended.held && !ended.claimAtInfinity, "\(write)")
            #expect(try fixture.readHeld(owner: "a").due.isEmpty)
            #expect(try !fixture.writeQuiet(owner: "a", underHold: true), "a check of the old copy is not written")
            #expect(try fixture.row().version != before)
        }

        // Nor is it once the old holder claimed it again meanwhile: that
        // check needs the lease, not the hold it had.
        try update("next_check_at = now() - interval '1 second'")
        try holdAgain()
        try update("etag = NULL, next_check_at = now() - interval '1 second'")
        #expect(try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60)).map(\.id) == [fixture.watch.targetID])
        let leased = try fixture.row().version
        #expect(try !fixture.writeQuiet(owner: "a", underHold: true))
        #expect(try fixture.row().version == leased)
        #expect(try fixture.writeQuiet(owner: "a", underHold: false))
    }

    @Test func aChangeToAnyWatchOfAHeldTargetEndsTheHold() throws {
        let fixture = try Fixture()
        defer { fixture.context.close() }
        let other = try fixture.context.watch(user: try fixture.context.user(), url: "https://93.184.215.14/held", interval: 120)
        #expect(other.targetID == fixture.watch.targetID)
        func holdAgain() throws {
            try fixture.context.database.withConnection {
                try $0.execute("UPDATE targets SET next_check_at = now() - interval '1 second' WHERE id = \(fixture.watch.targetID)")
            }
            #expect(try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60)).map(\.id) == [fixture.watch.targetID])
            #expect(try fixture.writeQuiet(owner: "a", dueIn: 600))
            #expect(try fixture.row().held)
        }
        // Pausing and resuming the watch with the longer interval leave the
        // target's interval as it was; each still changes what a check of
        // it writes, so the holder must read the watches again.
        for paused in [true, false] {
            try holdAgain()
            _ = try fixture.context.watches.setPaused(paused, userID: other.userID, id: other.id)
            #expect(try fixture.row().owner == nil, "paused \(paused)")
            #expect(try fixture.readHeld(owner: "a").due.isEmpty)
        }
        try holdAgain()
        #expect(try fixture.context.watches.delete(userID: other.userID, id: other.id))
        #expect(try fixture.row().owner == nil, "deleted")
    }

    @Test func aKeptCopyReadsAsTheRowItsQuietWriteLeft() throws {
        let fixture = try Fixture()
        defer { fixture.context.close() }
        var copy = try #require(try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60)).first)
        /// What a check uses of a target, dates to the millisecond (the row
        /// keeps microseconds).
        func fields(_ target: ClaimedTarget) -> String {
            let watches = target.watches.map {
                "\($0.id) \(String(describing: $0.lastCheckResult)) \($0.consecutiveFailures) \($0.wasChecked)"
            }
            return [
                "\(String(describing: target.etag)) \(String(describing: target.lastModified)) \(String(describing: target.lastVersion))",
                "\(String(describing: target.bodySHA256)) \(target.checksSinceFull) \(target.consecutiveFailures)",
                "\(String(describing: target.lastBodySize)) \((target.contentChangedAt.timeIntervalSince1970 * 1000).rounded())",
                "\(target.isHeld) \(watches)",
            ].joined(separator: " | ")
        }
        func write(_ edit: (inout TargetCheckRecord) -> Void, watchResult: CheckResult?) throws {
            var record = TargetCheckRecord(targetID: copy.id, checkedAt: Date(), nextCheckAt: Date().addingTimeInterval(-1))
            record.underHold = copy.isHeld
            edit(&record)
            let watches = watchResult.map {
                [QuietWatchResult(watchID: fixture.watch.id, result: $0, checkedAt: record.checkedAt, underHold: record.underHold)]
            }
            #expect(try fixture.store.writeQuiet(owner: "a", targets: [record], watches: watches ?? []) == [copy.id])
            copy = copy.afterQuietWrite(record, results: watchResult.map { [fixture.watch.id: $0] } ?? [:])
            let read = try #require(try fixture.readHeld(owner: "a").due.first)
            #expect(fields(copy) == fields(read))
        }
        // The baseline's pending watch is not written by a quiet result.
        try write({ _ in }, watchResult: .notModified)
        try fixture.context.database.withConnection { try $0.execute("UPDATE watches SET state = 'ok' WHERE id = \(fixture.watch.id)") }
        try fixture.context.database.withConnection {
            try $0.execute("UPDATE targets SET next_check_at = now() - interval '1 second' WHERE id = \(copy.id)")
        }
        copy = try #require(try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60)).first)
        try write(
            {
                $0.httpStatus = 200
                $0.validators = .replace((etag: "\"v2\"", lastModified: "Tue, 01 Dec 2026 10:00:00 GMT"))
                $0.version = .replace("7")
                $0.bodySHA256 = .replace(String(repeating: "ab", count: 32))
                $0.wasUnconditional = true
                $0.contentChanged = true
                $0.fullBodySize = 1_234
            }, watchResult: .unchanged)
        try write({ $0.httpStatus = 304 }, watchResult: .notModified)
        try write({ $0.error = "timed out" }, watchResult: nil)
        try write(
            {
                $0.validators = .replace((etag: nil, lastModified: nil)); $0.version = .replace(nil)
            }, watchResult: .unchanged)
        #expect(copy.checksSinceFull == 3 && copy.isHeld)
    }

    @Test func pausingOrResumingEndsAHoldAndAPausedTargetIsNotChecked() throws {
        let fixture = try Fixture()
        defer { fixture.context.close() }
        func setPaused(_ paused: Bool) throws {
            try fixture.context.database.withConnection {
                try $0.execute("UPDATE watches SET paused = \(paused) WHERE id = \(fixture.watch.id)")
            }
        }
        _ = try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60))
        try fixture.writeQuiet(owner: "a", dueIn: -5)
        #expect(try fixture.row().held)

        try setPaused(true)
        #expect(try fixture.row().owner == nil && !fixture.row().held, "the interval went: the hold ends")
        #expect(try fixture.readHeld(owner: "a").due.isEmpty)
        #expect(try fixture.store.claimDue(owner: "b", limit: 10, lease: .seconds(60)).isEmpty, "paused: nobody checks it")

        try setPaused(false)
        #expect(try fixture.store.claimDue(owner: "b", limit: 10, lease: .seconds(60)).map(\.id) == [fixture.watch.targetID])
        try fixture.writeQuiet(owner: "b", dueIn: 600)
        try fixture.context.database.withConnection {
            try $0.execute("UPDATE watches SET interval_seconds = 30 WHERE id = \(fixture.watch.id)")
        }
        #expect(try fixture.row().owner == nil, "a new interval ends the hold too")
        let walked = try fixture.context.database.query(
            """
            SELECT claim_at = next_check_at AND next_check_at < now() + interval '31 seconds' AS walked
            FROM targets WHERE id = \(fixture.watch.targetID)
            """)[0]
        #expect(try walked.decode("walked", as: Bool.self), "back in the walk at the shorter interval")
    }

    @Test func aPollerWithoutASchedulerKeepsNoHolds() async throws {
        let context = try PollerTestContext()
        let origin = try TestOriginServer { _ in .text("page") }
        defer { origin.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/asked", interval: 60)
        let poller = try context.poller(concurrency: 0)
        defer { poller.stop() }
        _ = try await context.check(watch, with: poller)
        let row = try context.database.query(
            "SELECT lease_owner, lease_held, claim_at = next_check_at AS walked FROM targets WHERE id = \(watch.targetID)")[0]
        #expect(try row.decode("lease_owner", as: String?.self) == nil)
        #expect(try row.decode("lease_held", as: Bool.self) == false)
        #expect(try row.decode("walked", as: Bool.self), "left to pollers that schedule")
    }

    @Test func aCheckAskedForTakesOverAHoldButNotALease() throws {
        let fixture = try Fixture()
        defer { fixture.context.close() }
        _ = try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60))
        #expect(try fixture.store.claim(targetID: fixture.watch.targetID, owner: "b", lease: .seconds(60)) == nil)
        try fixture.writeQuiet(owner: "a")
        #expect(try fixture.store.claim(targetID: fixture.watch.targetID, owner: "b", lease: .seconds(60))?.id == fixture.watch.targetID)
        #expect(try fixture.row().owner == "b")
        #expect(try fixture.row().held == false)
        #expect(try fixture.row().claimAtInfinity == false)
        #expect(try fixture.readHeld(owner: "a").due.isEmpty, "the old holder drops it")
        #expect(try fixture.store.claim(targetID: fixture.watch.targetID, owner: "a", lease: .seconds(60)) == nil)
    }

    @Test func aResultThatGivesTheHoldBackLeavesTheTargetToAnyPoller() throws {
        let fixture = try Fixture()
        defer { fixture.context.close() }
        _ = try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60))
        try fixture.writeQuiet(owner: "a", keepsHold: false)
        #expect(try fixture.row().owner == nil)
        #expect(try fixture.row().held == false)
        #expect(try fixture.store.claimDue(owner: "b", limit: 10, lease: .seconds(60)).map(\.isHeld) == [false])
    }

    @Test func releaseAllGivesBackLeasesAndHolds() throws {
        let fixture = try Fixture()
        defer { fixture.context.close() }
        let other = try fixture.context.watch(user: try fixture.context.user(), url: "https://93.184.215.14/leased")
        _ = try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60))
        try fixture.writeQuiet(owner: "a")
        #expect(try fixture.store.releaseAll(owner: "a") == 2)
        #expect(try fixture.row().owner == nil)
        let claimed = try fixture.store.claimDue(owner: "b", limit: 10, lease: .seconds(60))
        #expect(Set(claimed.map(\.id)) == [fixture.watch.targetID, other.targetID])
    }

    @Test func aWatchJoiningAHeldTargetGetsItsBaselineNowNotAtTheHoldersNextCheck() async throws {
        let context = try PollerTestContext()
        let origin = try TestOriginServer { _ in .text("page") }
        defer { origin.stop(); context.close() }
        let first = try context.watch(user: try context.user(), url: "\(origin.baseURL)/shared", interval: 3600)
        let poller = try context.poller(concurrency: 4)
        defer { poller.stop() }
        #expect(try await eventually { try context.reload(first).contentHash != nil })
        let held = try context.database.query("SELECT lease_held FROM targets WHERE id = \(first.targetID)")[0]
        #expect(try held.decode("lease_held", as: Bool.self), "held, next due in an hour, in the poller's schedule only")

        // The holder would look in an hour; the new watch's baseline is due
        // now, which ends the hold and puts the target back in the walk.
        let second = try context.watch(user: try context.user(), url: "\(origin.baseURL)/shared", interval: 3600)
        #expect(second.targetID == first.targetID)
        #expect(try await eventually(timeout: .seconds(10)) { try context.reload(second).contentHash != nil })
        #expect(origin.receivedRequests == 2)
    }

    @Test func aHeldTargetIsCheckedFromItsCopyWithTheValidatorsItsLastWriteStored() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["etag"] = "\"e1\""
        let origin = try script.origin { request in
            let etag = script["etag"]!
            guard request.header("If-None-Match") != etag else { return TestResponse(status: 304, headers: [("ETag", etag)]) }
            return TestResponse(status: 200, headers: [("Content-Type", "text/plain"), ("ETag", etag)], body: Array("page".utf8))
        }
        let metrics = MetricsRegistry()
        let poller = try context.poller(concurrency: 4, metrics: metrics)
        defer { poller.stop(); origin.stop(); context.close() }
        let held = metrics.counter("tidings_poller_held_checks_total", help: "")
        let refused = metrics.counter("tidings_poller_writes_refused_total", help: "")
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/tagged", interval: 1)
        func conditional() -> [String?] { script.requests.map { request in request.headers.first { $0.name == "If-None-Match" }?.value } }

        // The baseline is an eventful write: the next check reads the row;
        // every quiet one after it keeps a copy, and the checks after those
        // use it.
        #expect(try await eventually(timeout: .seconds(15)) { held.value(labels: ["source": "copy"]) >= 2 })
        #expect(held.value(labels: ["source": "read"]) >= 1)
        #expect(conditional().dropFirst().allSatisfy { $0 == "\"e1\"" })

        // Same content under a new ETag: a quiet result that replaces the
        // validators. The copy carries them into the next request.
        script["etag"] = "\"e2\""
        #expect(try await eventually(timeout: .seconds(15)) { conditional().suffix(2) == ["\"e2\"", "\"e2\""] })
        #expect(try context.changeCount(of: watch) == 0)
        #expect(try context.reload(watch).lastCheckResult == .notModified)
        #expect(refused.value() == 0)
    }

    @Test func aPollerThatStartsLateGetsAShareOfTheHeldTargets() async throws {
        let context = try PollerTestContext()
        let origin = try TestOriginServer { _ in .text("page") }
        defer { origin.stop(); context.close() }
        let user = try context.user()
        let count = 24
        for index in 0..<count { _ = try context.watch(user: user, url: "\(origin.baseURL)/\(index)", interval: 1) }
        func held(by owner: String) throws -> Int {
            try context.database.query("SELECT count(*)::int AS n FROM targets WHERE lease_held AND lease_owner = \(owner)")[0]
                .decode("n", as: Int.self)
        }
        let first = try context.poller(concurrency: 8) { $0.userConcurrency = 8 }
        defer { first.stop() }
        #expect(try await eventually { try held(by: first.owner) == count })

        let second = try context.poller(concurrency: 8) { $0.userConcurrency = 8 }
        defer { second.stop() }
        let shared = try await eventually(timeout: .seconds(60)) { try held(by: second.owner) >= count / 4 }
        let state = try context.database.query(
            """
            SELECT count(*) FILTER (WHERE lease_owner = \(first.owner) AND lease_held)::int AS first_held,
                   count(*) FILTER (WHERE lease_owner = \(second.owner) AND lease_held)::int AS second_held,
                   count(*) FILTER (WHERE lease_owner IS NOT NULL AND NOT lease_held)::int AS leased,
                   count(*) FILTER (WHERE lease_owner IS NULL)::int AS free,
                   coalesce(round(extract(epoch FROM now() - min(next_check_at))), 0)::int AS most_overdue
            FROM targets
            """)[0]
        let summary = try ["first_held", "second_held", "leased", "free", "most_overdue"].map {
            "\($0) \(try state.decode($0, as: Int.self))"
        }
        #expect(shared, "\(summary.joined(separator: ", ")); \(origin.receivedRequests) requests")
        #expect(try held(by: first.owner) < count)
    }

    @Test func alonePollerKeepsEveryHoldAndBesideOthersGivesBackEveryEighth() {
        var holds = TargetHolds()
        #expect((0..<100).allSatisfy { _ in holds.keepsNext() })
        holds.share(among: LiveOwners(count: 3))
        let kept = (0..<80).map { _ in holds.keepsNext() }
        #expect(kept.filter { !$0 }.count == 80 / TargetHolds.giveBackEvery)
        #expect(!kept[TargetHolds.giveBackEvery - 1])
        holds.share(among: LiveOwners(count: 1))
        #expect((0..<100).allSatisfy { _ in holds.keepsNext() })
    }
}
