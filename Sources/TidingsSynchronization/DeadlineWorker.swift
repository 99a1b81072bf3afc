package import Synchronization

/// Work that may block (a write to a full pipe, locks other threads hold)
/// run at deadlines the `DeadlineTimer` keeps: the timer's action only
/// wakes this worker's own thread, so a slow run never makes another
/// deadline in the process late.
package final class DeadlineWorker: Sendable {
    /// How long the thread sleeps with nothing scheduled (a due run wakes
    /// it anyway).
    private static let idleWait: Duration = .seconds(3600)

    private let loop: WorkerLoop
    private let body: @Sendable () -> Void
    private let due = Atomic<Bool>(false)
    private let pending = AdaptiveMutex<DeadlineTimer.Handle?>(nil)

    /// `body` runs on a thread called `name`, started with the first
    /// `schedule`.
    package init(name: String, _ body: @escaping @Sendable () -> Void) {
        loop = WorkerLoop(name: name)
        self.body = body
    }

    /// Runs the body once `deadline` has passed, in place of a run
    /// scheduled before and not yet due. The body may schedule the next.
    package func schedule(at deadline: ContinuousClock.Instant) {
        guard !loop.isStopping else { return }
        let handle = DeadlineTimer.shared.schedule(at: deadline) { [weak self] in
            self?.due.store(true, ordering: .releasing)
            self?.loop.wake()
        }
        let previous = pending.withLock { pending in
            defer { pending = handle }
            return pending
        }
        if let previous { DeadlineTimer.shared.cancel(previous) }
        loop.start { [self] in run() }
    }

    /// Cancels the next run and ends the thread, after a run under way.
    package func stop() {
        if let next = pending.withLock({ $0.take() }) { DeadlineTimer.shared.cancel(next) }
        loop.stop()
    }

    private func run() {
        while !loop.isStopping {
            if due.exchange(false, ordering: .acquiringAndReleasing) {
                body()
            } else {
                loop.wait(timeout: Self.idleWait)
            }
        }
    }
}
