import Foundation
import Testing

@testable import TidingsDomain
@testable import TidingsPoller

/// The schedule a poller keeps of the targets it holds (decision 0058).
@Suite struct HeldScheduleTests {
    private let start = Date(timeIntervalSince1970: 1_000_000)
    private let ids = (0..<6).map { _ in UUID() }
    private let users = (0..<2).map { _ in UUID() }

    @Test func takesDueTargetsSoonestFirstUpToTheLimitAndLeavesTheRest() {
        var schedule = HeldSchedule()
        for (offset, id) in ids.enumerated().reversed() { schedule.hold(id, due: start + Double(offset), users: []) }
        #expect(schedule.count == 6)
        #expect(schedule.takeDue(now: start - 1, limit: 10).map(\.id).isEmpty, "nothing due yet")
        #expect(schedule.takeDue(now: start + 3, limit: 2).map(\.id) == [ids[0], ids[1]])
        #expect(schedule.takeDue(now: start + 3, limit: 10).map(\.id) == [ids[2], ids[3]])
        #expect(schedule.count == 2, "taken targets leave until a result holds them again")
        #expect(schedule.takeDue(now: start + 100, limit: 10).map(\.id) == [ids[4], ids[5]])
        #expect(schedule.count == 0)
    }

    @Test func takenTargetsPutBackComeUpAgainAtTheirTimes() {
        var schedule = HeldSchedule()
        for (offset, id) in ids.prefix(3).enumerated() { schedule.hold(id, due: start + Double(offset), users: [users[0]]) }
        let taken = schedule.takeDue(now: start + 10, limit: 3)
        #expect(schedule.count == 0)
        schedule.putBack(taken.suffix(2))
        #expect(schedule.count == 2)
        #expect(schedule.takeDue(now: start + 1, limit: 10).map(\.id) == [ids[1]])
        #expect(schedule.takeDue(now: start + 10, limit: 10, saturated: [users[0]]).isEmpty, "users kept")
        #expect(schedule.takeDue(now: start + 10, limit: 10).map(\.id) == [ids[2]])
    }

    @Test func holdingATargetAgainReplacesItsTime() {
        var schedule = HeldSchedule()
        schedule.hold(ids[0], due: start, users: [])
        schedule.hold(ids[1], due: start + 1, users: [])
        schedule.hold(ids[0], due: start + 10, users: [])
        #expect(schedule.count == 2)
        #expect(schedule.takeDue(now: start + 5, limit: 10).map(\.id) == [ids[1]], "the earlier time is stale")
        #expect(schedule.takeDue(now: start + 10, limit: 10).map(\.id) == [ids[0]])
        #expect(schedule.takeDue(now: start + 100, limit: 10).map(\.id).isEmpty, "each target once")
    }

    @Test func staleEntriesAreDroppedOnceTheyAreMostOfTheHeap() {
        var schedule = HeldSchedule()
        let id = UUID()
        for step in 0..<1_000 { schedule.hold(id, due: start + Double(step), users: []) }
        #expect(schedule.count == 1)
        #expect(schedule.heldEntries < 64, "memory follows the targets held, not the holds ever made")
        #expect(schedule.takeDue(now: start + 2_000, limit: 10).map { $0.due } == [start + 999])
    }

    @Test func targetsOfSaturatedUsersStayDueInPlace() {
        var schedule = HeldSchedule()
        schedule.hold(ids[0], due: start, users: [users[0]])
        schedule.hold(ids[1], due: start + 1, users: [users[0], users[1]])
        schedule.hold(ids[2], due: start + 2, users: [users[1]])
        schedule.hold(ids[3], due: start + 3, users: [])
        #expect(schedule.takeDue(now: start + 5, limit: 10, saturated: [users[0]]).map(\.id) == [ids[1], ids[2], ids[3]])
        #expect(schedule.count == 1)
        #expect(schedule.takeDue(now: start + 5, limit: 10).map(\.id) == [ids[0]])
    }

    @Test func passesOverAtMostTheLimitOfSaturatedTargetsPerTake() {
        var schedule = HeldSchedule()
        for (offset, id) in ids.enumerated() { schedule.hold(id, due: start + Double(offset), users: [users[0]]) }
        #expect(schedule.takeDue(now: start + 10, limit: 2, saturated: [users[0]]).map(\.id).isEmpty)
        #expect(schedule.count == 6, "passed over, not dropped")
        #expect(schedule.takeDue(now: start + 10, limit: 10).map(\.id).count == 6)
    }

    @Test func keepsOrderThroughManyHoldsAndTakes() {
        var schedule = HeldSchedule()
        var generator = SystemRandomNumberGenerator()
        var expected: [UUID: Date] = [:]
        for _ in 0..<500 {
            let id = UUID()
            let due = start + Double(Int.random(in: 0..<1_000, using: &generator))
            schedule.hold(id, due: due, users: [])
            expected[id] = due
        }
        var taken: [UUID] = []
        var now = start
        while taken.count < 500 {
            now += 50
            taken += schedule.takeDue(now: now, limit: 37).map(\.id)
        }
        #expect(Set(taken) == Set(expected.keys))
        let dues = taken.map { expected[$0]! }
        #expect(zip(dues, dues.dropFirst()).allSatisfy { $0 <= $1 }, "soonest first")
    }

    private func copy(of id: UUID) -> ClaimedTarget {
        ClaimedTarget(
            id: id, url: "https://example.com/", storedHeaders: "{}", storedVersionHeaders: "{}", headersSealed: false, etag: "\"e\"",
            lastModified: nil, versionURL: nil, versionPointer: nil, lastVersion: nil, checksSinceFull: 0, intervalSeconds: 60,
            maxIntervalSeconds: 60, contentChangedAt: start, consecutiveFailures: 0, lastBodySize: nil, bodySHA256: nil, watches: [])
    }

    /// Copies are kept only while ended holds are heard of (decision 0064).
    @Test func copiesAreKeptOnlyWhileTold() {
        var schedule = HeldSchedule()
        schedule.hold(ids[0], due: start, users: [], copy: copy(of: ids[0]))
        #expect(schedule.takeDue(now: start, limit: 10).map { $0.copy?.id } == [nil], "not yet listening")

        schedule.keepCopies(true)
        for id in ids.prefix(3) { schedule.hold(id, due: start, users: [], copy: copy(of: id)) }
        schedule.keepCopies(false)
        schedule.hold(ids[3], due: start, users: [], copy: copy(of: ids[3]))
        #expect(schedule.takeDue(now: start, limit: 10).map { $0.copy?.id } == [nil, nil, nil, nil], "a lost session drops them all")
    }

    /// An ended hold drops the copy but keeps the target's time: a hold
    /// taken again may have set it. A copy given again is kept.
    @Test func anEndedHoldDropsOnlyItsCopy() {
        var schedule = HeldSchedule()
        schedule.keepCopies(true)
        for (offset, id) in ids.prefix(3).enumerated() { schedule.hold(id, due: start + Double(offset), users: [], copy: copy(of: id)) }
        schedule.holdsEnded([ids[1], UUID()])
        let taken = schedule.takeDue(now: start + 10, limit: 10)
        #expect(taken.map(\.id) == Array(ids.prefix(3)))
        #expect(taken.map { $0.copy?.id } == [ids[0], nil, ids[2]])

        schedule.putBack(taken)
        #expect(schedule.takeDue(now: start + 10, limit: 10).map { $0.copy?.id } == [ids[0], nil, ids[2]], "put back with them")
        schedule.hold(ids[1], due: start, users: [], copy: copy(of: ids[1]))
        schedule.holdsEnded([ids[1]])
        schedule.hold(ids[1], due: start + 1, users: [], copy: copy(of: ids[1]))
        #expect(schedule.takeDue(now: start + 10, limit: 10).map { $0.copy?.id } == [ids[1]], "held again after the end")
    }

    /// A copy belongs to its target's latest time: holding it again
    /// without one leaves none, and dropping them all keeps the times.
    @Test func aCopyFollowsItsTargetsLatestHold() {
        var schedule = HeldSchedule()
        schedule.keepCopies(true)
        schedule.hold(ids[0], due: start, users: [], copy: copy(of: ids[0]))
        schedule.hold(ids[0], due: start + 1, users: [])
        schedule.hold(ids[1], due: start + 2, users: [], copy: copy(of: ids[1]))
        schedule.dropCopies()
        #expect(schedule.count == 2)
        #expect(schedule.takeDue(now: start + 10, limit: 10).map { $0.copy?.id } == [nil, nil])
    }
}
