import Testing
import TidingsTestSupport

@testable import TidingsSynchronization

/// The timer's rules without its thread: what is due when, and when the
/// thread must be woken.
@Suite struct DeadlineScheduleTests {
    private let start = ContinuousClock.now

    @Test func dueActionsComeEarliestFirstAndLaterOnesWait() {
        var schedule = DeadlineSchedule<String>()
        _ = schedule.add("c", at: start + .milliseconds(30))
        _ = schedule.add("a", at: start + .milliseconds(10))
        _ = schedule.add("b", at: start + .milliseconds(20))
        #expect(schedule.takeDue(at: start + .milliseconds(9)).isEmpty)
        #expect(schedule.wakesAt == start + .milliseconds(10))
        #expect(schedule.takeDue(at: start + .milliseconds(20)) == ["a", "b"])
        #expect(schedule.wakesAt == start + .milliseconds(30))
        #expect(schedule.takeDue(at: start + .seconds(1)) == ["c"])
        #expect(schedule.wakesAt == nil)
        #expect(schedule.count == 0)
    }

    @Test func onlyADeadlineBeforeTheNextLookWakesTheThread() {
        var schedule = DeadlineSchedule<Int>()
        // Asleep with nothing in view: the first action wakes it.
        #expect(schedule.add(1, at: start + .seconds(5)).isEarliest)
        #expect(!schedule.add(2, at: start + .seconds(6)).isEarliest)
        #expect(!schedule.add(3, at: start + .seconds(5)).isEarliest)
        #expect(schedule.add(4, at: start + .seconds(1)).isEarliest)
        #expect(schedule.wakesAt == start + .seconds(1))
        #expect(schedule.takeDue(at: start) == [])
        // The thread looked and saw the earliest deadline again.
        #expect(schedule.wakesAt == start + .seconds(1))
        #expect(!schedule.add(5, at: start + .seconds(2)).isEarliest)
    }

    @Test func aRemovedActionNeverComesDueNorWakesTheThread() {
        var schedule = DeadlineSchedule<String>()
        let early = schedule.add("early", at: start + .seconds(1))
        _ = schedule.add("late", at: start + .seconds(9))
        #expect(schedule.remove(early.id) == "early")
        #expect(schedule.remove(early.id) == nil)
        #expect(schedule.takeDue(at: start) == [])
        #expect(schedule.wakesAt == start + .seconds(9))
        #expect(schedule.takeDue(at: start + .seconds(9)) == ["late"])
        let taken = schedule.add("taken", at: start)
        #expect(schedule.takeDue(at: start) == ["taken"])
        #expect(schedule.remove(taken.id) == nil)
    }

    /// Arming and cancelling a time limit per extraction leaves heap
    /// entries behind; they must not pile up.
    @Test func memoryFollowsThePendingActions() {
        var schedule = DeadlineSchedule<Int>()
        _ = schedule.add(-1, at: start + .seconds(3600))
        for value in 0..<100_000 {
            let added = schedule.add(value, at: start + .seconds(2) + .microseconds(value))
            #expect(schedule.remove(added.id) == value)
        }
        #expect(schedule.count == 1)
        #expect(schedule.heldEntries < 128)
        #expect(schedule.takeDue(at: start + .seconds(3600)) == [-1])
    }

    /// Random adds, removals and looks against a plain list of what is
    /// pending.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func agreesWithAListOfThePending(seed: UInt64) {
        var random = SeededRandomNumberGenerator(seed: seed)
        var schedule = DeadlineSchedule<Int>()
        var pending: [(id: UInt64, deadline: ContinuousClock.Instant, value: Int)] = []
        var now = start
        for step in 0..<20_000 {
            switch random.next() % 10 {
            case 0..<5:
                let deadline = now + .milliseconds(Int64(random.next() % 1_000))
                let added = schedule.add(step, at: deadline)
                pending.append((added.id, deadline, step))
            case 5..<7 where !pending.isEmpty:
                let removed = pending.remove(at: Int(random.next() % UInt64(pending.count)))
                #expect(schedule.remove(removed.id) == removed.value)
            default:
                now += .milliseconds(Int64(random.next() % 50))
                let due = pending.filter { $0.deadline <= now }
                pending.removeAll { $0.deadline <= now }
                let taken = schedule.takeDue(at: now)
                #expect(taken.sorted() == due.map(\.value).sorted())
                #expect(schedule.wakesAt == pending.map(\.deadline).min())
            }
            #expect(schedule.count == pending.count)
        }
    }
}
