package import Dispatch
package import Synchronization

/// Wakes a worker loop early (the dispatcher's, a heartbeat's). Signals
/// coalesce: many wakes while the loop is busy cost it one extra turn, not
/// one per wake.
package final class WakeSignal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let pending = Atomic<Bool>(false)

    package init() {}

    package func wake() {
        if !pending.exchange(true, ordering: .acquiringAndReleasing) {
            semaphore.signal()
        }
    }

    /// Returns `true` when woken, `false` after `timeout`.
    @discardableResult
    package func wait(timeout: Duration) -> Bool {
        guard semaphore.wait(timeout: timeout.dispatchDeadline) == .success else { return false }
        pending.store(false, ordering: .releasing)
        return true
    }
}
