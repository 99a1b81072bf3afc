import Dispatch
import Synchronization
import TidingsSynchronization

/// Wakes the dispatcher loop early. Signals coalesce: many wakes while the
/// loop is busy cost it one extra turn, not one per wake.
final class WakeSignal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let pending = Atomic<Bool>(false)

    func wake() {
        if !pending.exchange(true, ordering: .acquiringAndReleasing) {
            semaphore.signal()
        }
    }

    /// Returns when woken or after `timeout`.
    func wait(timeout: Duration) {
        if semaphore.wait(timeout: timeout.dispatchDeadline) == .success {
            pending.store(false, ordering: .releasing)
        }
    }
}
