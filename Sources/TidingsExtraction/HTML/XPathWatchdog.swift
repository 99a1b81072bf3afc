internal import CLibXML2
import TidingsSynchronization

/// Stops XPath evaluations at their extraction's deadline. libxml2 counts
/// operations but not every kind of work (merging node sets), and has no
/// cancellation: at the deadline the watchdog lowers the running context's
/// operation limit (`CLibXML2_xpath_interrupt`) so the evaluation fails at
/// its next check. The process's `DeadlineTimer` keeps the time.
///
/// Context pointers are only touched under the lock, and `disarm` removes
/// one before the evaluating thread frees its context, so an interruption
/// that fires late finds nothing to touch.
final class XPathWatchdog: Sendable {
    /// An armed evaluation, for `disarm`.
    struct Watch: Sendable {
        fileprivate let id: UInt64
        fileprivate let timer: DeadlineTimer.Handle
    }

    private struct Entry {
        let context: xmlXPathContextPtr
        var tripped = false
    }

    private struct State: @unchecked Sendable {
        // Unchecked: each pointer is used only while its evaluation runs
        // and only under the mutex (see the type's comment).
        var entries: [UInt64: Entry] = [:]
        var lastID: UInt64 = 0
    }

    static let shared = XPathWatchdog()

    private let state = AdaptiveMutex(State())

    private init() {}

    /// Watches `context` until `disarm`, interrupting it at `deadline`.
    func arm(_ context: xmlXPathContextPtr, deadline: ContinuousClock.Instant) -> Watch {
        let id = state.withLock { state in
            state.lastID &+= 1
            state.entries[state.lastID] = Entry(context: context)
            return state.lastID
        }
        let timer = DeadlineTimer.shared.schedule(at: deadline) { [self] in interrupt(id) }
        return Watch(id: id, timer: timer)
    }

    /// Ends the watch; true if the deadline interrupted the evaluation.
    func disarm(_ watch: Watch) -> Bool {
        DeadlineTimer.shared.cancel(watch.timer)
        return state.withLock { $0.entries.removeValue(forKey: watch.id)?.tripped ?? false }
    }

    private func interrupt(_ id: UInt64) {
        state.withLock { state in
            guard let entry = state.entries[id] else { return }
            CLibXML2_xpath_interrupt(entry.context)
            state.entries[id]?.tripped = true
        }
    }
}
