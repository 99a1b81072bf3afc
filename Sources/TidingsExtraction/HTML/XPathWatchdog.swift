internal import CLibXML2
import TidingsSynchronization

/// Stops XPath evaluations at their extraction's deadline. libxml2 counts
/// operations but not every kind of work (merging node sets), and has no
/// cancellation: at the deadline the watchdog lowers the running context's
/// operation limit (`CLibXML2_xpath_interrupt`) so the evaluation fails at
/// its next check.
///
/// One thread watches every evaluation in the process. It sleeps until the
/// earliest deadline it knew of at its last turn, so arming usually costs
/// a lock and an insertion, not a wakeup: a timer per evaluation (as
/// before) cost 2 % of the poller's CPU on the mixed benchmark. The thread
/// starts with the first evaluation and lives as long as the process,
/// like libxml2's own global state.
///
/// Context pointers are only touched under the lock, and `disarm` removes
/// one before the evaluating thread frees its context.
final class XPathWatchdog: Sendable {
    /// An armed evaluation, for `disarm`.
    struct Watch: Sendable {
        fileprivate let id: UInt64
    }

    private struct Entry {
        let context: xmlXPathContextPtr
        let deadline: ContinuousClock.Instant
        var tripped = false
    }

    private struct State: @unchecked Sendable {
        // Unchecked: each pointer is used only while its evaluation runs
        // and only under the mutex (see the type's comment).
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        /// When the thread will look next; nil while it sleeps without a
        /// deadline (nothing armed at its last turn).
        var wakesAt: ContinuousClock.Instant?
    }

    static let shared = XPathWatchdog()

    private let state = AdaptiveMutex(State())
    private let loop = WorkerLoop(name: "tidings.xpath-watchdog")
    /// How long the thread sleeps with nothing armed (it is woken anyway).
    private static let idleWait: Duration = .seconds(3600)

    private init() {}

    /// Watches `context` until `disarm`, interrupting it at `deadline`.
    func arm(_ context: xmlXPathContextPtr, deadline: ContinuousClock.Instant) -> Watch {
        let (watch, wakeThread) = state.withLock { state -> (Watch, Bool) in
            state.nextID &+= 1
            state.entries[state.nextID] = Entry(context: context, deadline: deadline)
            let earlier = state.wakesAt.map { deadline < $0 } ?? true
            if earlier { state.wakesAt = deadline }
            return (Watch(id: state.nextID), earlier)
        }
        if wakeThread {
            loop.start { [self] in run() }
            loop.wake()
        }
        return watch
    }

    /// Ends the watch; true if the deadline interrupted the evaluation.
    func disarm(_ watch: Watch) -> Bool {
        state.withLock { $0.entries.removeValue(forKey: watch.id)?.tripped ?? false }
    }

    private func run() {
        while true {
            let now = ContinuousClock.now
            let wakesAt = state.withLock { state -> ContinuousClock.Instant? in
                var next: ContinuousClock.Instant?
                for index in state.entries.values.indices where !state.entries.values[index].tripped {
                    let entry = state.entries.values[index]
                    if entry.deadline <= now {
                        CLibXML2_xpath_interrupt(entry.context)
                        state.entries.values[index].tripped = true
                    } else if next.map({ entry.deadline < $0 }) ?? true {
                        next = entry.deadline
                    }
                }
                state.wakesAt = next
                return next
            }
            loop.wait(timeout: wakesAt.map { now.duration(to: $0) } ?? Self.idleWait)
        }
    }
}
