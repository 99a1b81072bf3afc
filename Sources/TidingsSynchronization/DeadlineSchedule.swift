/// The `DeadlineTimer`'s decisions without its thread: which actions are due
/// and when the thread must look next. Pure, so the rules are tested on
/// their own with instants the test picks.
///
/// A min-heap of deadlines, with the actions themselves in a table by id.
/// Removing an action leaves its heap entry behind, skipped when it
/// surfaces; once such leftovers are most of the heap it is rebuilt, so
/// memory follows the actions pending, not the ones ever scheduled.
struct DeadlineSchedule<Action> {
    typealias Instant = ContinuousClock.Instant

    private struct Entry: Comparable {
        let deadline: Instant
        let id: UInt64

        static func < (lhs: Entry, rhs: Entry) -> Bool { lhs.deadline < rhs.deadline }
    }

    private var heap = MinHeap<Entry>()
    private var actions: [UInt64: Action] = [:]
    private var lastID: UInt64 = 0
    /// When the thread will look next: the earliest deadline it knew of at
    /// its last turn, or the earlier one that woke it since. Nil while it
    /// sleeps with nothing in view.
    private(set) var wakesAt: Instant?

    /// Actions scheduled and not yet taken or removed.
    var count: Int { actions.count }

    /// Heap entries held, leftovers included: what the schedule's memory
    /// follows.
    var heldEntries: Int { heap.count }

    /// Schedules `action` for `deadline`. `isEarliest` is true when it is
    /// due before the thread would look next, so the thread must be woken.
    mutating func add(_ action: Action, at deadline: Instant) -> (id: UInt64, isEarliest: Bool) {
        lastID &+= 1
        actions[lastID] = action
        heap.push(Entry(deadline: deadline, id: lastID))
        let isEarliest = wakesAt.map { deadline < $0 } ?? true
        if isEarliest { wakesAt = deadline }
        return (lastID, isEarliest)
    }

    /// Unschedules an action; nil when it was taken (or removed) already.
    mutating func remove(_ id: UInt64) -> Action? {
        guard let action = actions.removeValue(forKey: id) else { return nil }
        if heap.count >= 64 && actions.count * 2 < heap.count { heap.removeAll { actions[$0.id] == nil } }
        return action
    }

    /// Takes the actions due at `now`, earliest first, and sets `wakesAt`
    /// to the earliest deadline still pending.
    mutating func takeDue(at now: Instant) -> [Action] {
        var due: [Action] = []
        while let top = heap.first, top.deadline <= now {
            heap.popFirst()
            if let action = actions.removeValue(forKey: top.id) { due.append(action) }
        }
        // Leftovers of removed actions on top would wake the thread for
        // nothing.
        while let top = heap.first, actions[top.id] == nil { heap.popFirst() }
        wakesAt = heap.first?.deadline
        return due
    }
}
