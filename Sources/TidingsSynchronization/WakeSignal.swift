import Dispatch
import Synchronization

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

    /// Returns when woken or after `timeout`.
    package func wait(timeout: Duration) {
        if semaphore.wait(timeout: timeout.dispatchDeadline) == .success {
            pending.store(false, ordering: .releasing)
        }
    }
}
