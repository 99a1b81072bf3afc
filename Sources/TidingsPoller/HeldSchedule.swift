import FoundationEssentials
import TidingsDomain
import TidingsSynchronization

/// When each target this poller holds between checks is next due (decision
/// 0058): the database's walk of due targets leaves held ones out, so their
/// holder keeps their times here and reads them by id as they come. The
/// row stays the truth: what this says is only when to look (`CheckStore.readHeld`
/// drops targets no longer held and reports any whose check was put off).
///
/// A min-heap of (due, target) with the latest time of each target beside
/// it; an entry whose time is no longer its target's latest is stale and
/// skipped when it comes up, so holding a target again costs one push.
/// Once stale entries are most of the heap it is rebuilt without them, so
/// memory follows the targets held. Each entry keeps the users its check
/// would be charged to, so targets of users at their share stay in place
/// instead of being read and put back, and, after a quiet write, the
/// target as written: checked from that copy without reading the row
/// (decision 0062); the write then holds only if nothing else wrote the
/// target or its watches meanwhile (`TargetCheckRecord.underHold`). A
/// hold that ends drops its copy as soon as the database announces it
/// (`HoldEndListener`, decision 0064), and copies are kept only while
/// such announcements can be heard (`keepsCopies`).
struct HeldSchedule: Sendable {
    /// A held target, when it is due, who its check would be charged to,
    /// and the target as its holder last wrote it, when that is known.
    struct Entry: Sendable, Comparable {
        let due: Date
        let id: UUID
        let users: [UUID]
        let copy: ClaimedTarget?

        static func < (lhs: Entry, rhs: Entry) -> Bool { lhs.due < rhs.due }
        static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.due == rhs.due && lhs.id == rhs.id }
    }

    /// Entries carry no copy here: the copy of a target's latest entry is
    /// in `copies`, so that it can be dropped without finding the entry.
    private var heap = MinHeap<Entry>()
    private var latest: [UUID: Date] = [:]
    private var copies: [UUID: ClaimedTarget] = [:]
    /// Whether copies are kept: only while every hold that ends is heard
    /// of. Off, `hold` drops the copies it is given.
    private(set) var keepsCopies = false

    /// Targets held here.
    var count: Int { latest.count }

    /// The target is held, next due at `due`, its check charged to one of
    /// `users`, checked from `copy` when given and copies are kept;
    /// replaces what was known of it.
    mutating func hold(_ id: UUID, due: Date, users: [UUID], copy: ClaimedTarget? = nil) {
        latest[id] = due
        copies[id] = keepsCopies ? copy : nil
        heap.push(Entry(due: due, id: id, users: users, copy: nil))
        if heap.count >= 64 && latest.count * 2 < heap.count {
            heap.removeAll { latest[$0.id] != $0.due }
        }
    }

    /// Up to `limit` held targets due at `now`, soonest first, passing over
    /// those whose every user is in `saturated` (left due, in place; at
    /// most `limit` of them are looked at beyond the ones taken). Taken
    /// targets leave the schedule: a check's result holds its target again.
    mutating func takeDue(now: Date, limit: Int, saturated: Set<UUID> = []) -> [Entry] {
        var taken: [Entry] = []
        var passedOver: [Entry] = []
        while taken.count < limit, passedOver.count < limit, let top = heap.first, top.due <= now {
            heap.popFirst()
            guard latest[top.id] == top.due else { continue }
            if !saturated.isEmpty, !top.users.isEmpty, top.users.allSatisfy(saturated.contains) {
                passedOver.append(top)
                continue
            }
            latest[top.id] = nil
            taken.append(Entry(due: top.due, id: top.id, users: top.users, copy: copies.removeValue(forKey: top.id)))
        }
        for entry in passedOver { heap.push(entry) }
        return taken
    }

    /// Puts taken targets back as they were (not checked after all).
    mutating func putBack(_ entries: some Sequence<Entry>) {
        for entry in entries { hold(entry.id, due: entry.due, users: entry.users, copy: entry.copy) }
    }

    /// The holds on `ids` ended: their next checks here read the rows
    /// (which drops them unless this poller holds them again by then).
    /// Their times stay, as a hold taken again may already have set them.
    mutating func holdsEnded(_ ids: some Sequence<UUID>) {
        for id in ids { copies[id] = nil }
    }

    /// Keeps the copies given from now on, or drops every copy and keeps
    /// none until told again.
    mutating func keepCopies(_ keep: Bool) {
        keepsCopies = keep
        if !keep { dropCopies() }
    }

    /// Drops every copy kept so far: each target's next check reads it.
    mutating func dropCopies() {
        copies.removeAll()
    }

    /// Forgets every held target (shutdown gives the holds back).
    mutating func removeAll() {
        heap = MinHeap()
        latest.removeAll()
        dropCopies()
    }

    /// Heap entries kept, stale ones included: what its memory follows.
    var heldEntries: Int { heap.count }
}
