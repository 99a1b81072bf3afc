import Foundation
import Testing
import TidingsDomain
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// A written target stays held by the poller that wrote it (decision 0057):
/// it is read, not written, when it falls due again; other pollers leave it
/// until its hold runs out; a check asked for through the API takes it over;
/// shutdown gives holds back.
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

        /// Writes a quiet result as `owner` and makes the target due again.
        func writeQuiet(owner: String, keepsHold: Bool = true) throws {
            var record = TargetCheckRecord(targetID: watch.targetID, checkedAt: Date(), nextCheckAt: Date().addingTimeInterval(-1))
            record.keepsHold = keepsHold
            try store.writeQuiet(owner: owner, targets: [record], watches: [])
        }

        struct Row: Equatable {
            let owner: String?
            let held: Bool
            let version: String
            let holdPastDue: Int?
        }

        /// The target's lease columns and row version (ctid and xmin: a new
        /// version of the row changes both).
        func row() throws -> Row {
            let row = try context.database.query(
                """
                SELECT lease_owner, lease_held, ctid::text || '/' || xmin::text AS version,
                       round(extract(epoch FROM lease_until - next_check_at))::int AS hold_past_due
                FROM targets WHERE id = \(watch.targetID)
                """)[0]
            return Row(
                owner: try row.decode("lease_owner"), held: try row.decode("lease_held"), version: try row.decode("version"),
                holdPastDue: try row.decode("hold_past_due"))
        }
    }

    @Test func aWrittenTargetIsHeldAndReadNotWrittenWhenItFallsDue() throws {
        let fixture = try Fixture()
        defer { fixture.context.close() }
        let leased = try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60))
        #expect(leased.map(\.id) == [fixture.watch.targetID])
        #expect(leased.map(\.isHeld) == [false])
        try fixture.writeQuiet(owner: "a")
        let held = try fixture.row()
        #expect(held.owner == "a" && held.held)
        #expect(held.holdPastDue == 30)

        let again = try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60))
        #expect(again.map(\.id) == [fixture.watch.targetID])
        #expect(again.map(\.isHeld) == [true])
        #expect(again.first?.watches.map(\.id) == [fixture.watch.id])
        #expect(try fixture.row() == held, "reading a held target writes no new row version")
        #expect(try fixture.store.claimDue(owner: "b", limit: 10, lease: .seconds(60)).isEmpty)
    }

    @Test func anExpiredHoldIsClaimedByAnotherPollerAndFencesTheHolderOut() throws {
        let fixture = try Fixture()
        defer { fixture.context.close() }
        _ = try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60))
        try fixture.writeQuiet(owner: "a")
        try fixture.context.database.withConnection {
            try $0.execute("UPDATE targets SET lease_until = now() - interval '1 second' WHERE id = \(fixture.watch.targetID)")
        }
        let taken = try fixture.store.claimDue(owner: "b", limit: 10, lease: .seconds(60))
        #expect(taken.map(\.isHeld) == [false])
        #expect(try fixture.row().owner == "b")
        #expect(try fixture.row().held == false)

        // The old holder's result of a check it began from its hold is not written.
        let before = try fixture.row().version
        try fixture.writeQuiet(owner: "a")
        #expect(try fixture.row().version == before)
        #expect(try fixture.store.claimDue(owner: "a", limit: 10, lease: .seconds(60)).isEmpty)
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
        #expect(try await eventually(timeout: .seconds(30)) { try held(by: second.owner) >= count / 4 })
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
