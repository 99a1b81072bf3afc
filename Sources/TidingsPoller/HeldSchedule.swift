import FoundationEssentials

/// When each target this poller holds between checks is next due (decision
/// 0058): the database's walk of due targets leaves held ones out, so their
/// holder keeps their times here and reads them by id as they come. The
/// row stays the truth: what this says is only when to look (`CheckStore.readHeld`
/// drops targets no longer held and reports any whose check was put off).
///
/// A min-heap of (due, target) with the latest time of each target beside
/// it; an entry whose time is no longer its target's latest is stale and
/// skipped when it comes up, so holding a target again costs one push.
/// Each entry keeps the users its check would be charged to, so targets of
/// users at their share stay in place instead of being read and put back.
struct HeldSchedule: Sendable {
    /// A held target, when it is due and who its check would be charged to.
    struct Entry: Sendable {
        let due: Date
        let id: UUID
        let users: [UUID]
    }

    private var heap: [Entry] = []
    private var latest: [UUID: Date] = [:]

    /// Targets held here.
    var count: Int { latest.count }

    /// The target is held, next due at `due`, its check charged to one of
    /// `users`; replaces what was known of it.
    mutating func hold(_ id: UUID, due: Date, users: [UUID]) {
        latest[id] = due
        push(Entry(due: due, id: id, users: users))
    }

    /// Up to `limit` held targets due at `now`, soonest first, passing over
    /// those whose every user is in `saturated` (left due, in place; at
    /// most `limit` of them are looked at beyond the ones taken). Taken
    /// targets leave the schedule: a check's result holds its target again.
    mutating func takeDue(now: Date, limit: Int, saturated: Set<UUID> = []) -> [Entry] {
        var taken: [Entry] = []
        var passedOver: [Entry] = []
        while taken.count < limit, passedOver.count < limit, let top = heap.first, top.due <= now {
            let entry = popFirst()
            guard latest[entry.id] == entry.due else { continue }
            if !saturated.isEmpty, !entry.users.isEmpty, entry.users.allSatisfy(saturated.contains) {
                passedOver.append(entry)
                continue
            }
            latest[entry.id] = nil
            taken.append(entry)
        }
        for entry in passedOver { push(entry) }
        return taken
    }

    /// Puts taken targets back as they were (not checked after all).
    mutating func putBack(_ entries: some Sequence<Entry>) {
        for entry in entries { hold(entry.id, due: entry.due, users: entry.users) }
    }

    /// Forgets every held target (shutdown gives the holds back).
    mutating func removeAll() {
        heap.removeAll()
        latest.removeAll()
    }

    // MARK: Heap

    private mutating func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popFirst() -> Entry {
        let first = heap[0]
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count, heap[right].due < heap[smallest].due { smallest = right }
            guard smallest != parent else { return first }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
