import Dispatch
import Synchronization

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
        let (seconds, attoseconds) = max(timeout, .zero).components
        let nanoseconds = Int(min(seconds, 1 << 32)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        if semaphore.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success {
            pending.store(false, ordering: .releasing)
        }
    }
}
