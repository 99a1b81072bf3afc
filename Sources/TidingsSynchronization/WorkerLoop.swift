package import Synchronization

/// An engine's own thread running one loop until stopped: a named
/// `JoinableThread`, a stop flag and a `WakeSignal`, which every engine
/// (scheduler, writers, dispatcher, heartbeat, LISTEN loop) needs together.
///
/// The loop checks `isStopping` each turn and sleeps with `wait(timeout:)`,
/// which returns early on `wake()` or `stop()`.
package final class WorkerLoop: Sendable {
    private enum Phase {
        case idle
        case running(JoinableThread)
        case stopped
    }

    package let name: String
    private let signal = WakeSignal()
    private let stopping = Atomic<Bool>(false)
    private let phase = AdaptiveMutex(Phase.idle)

    package init(name: String) {
        self.name = name
    }

    /// Starts `body` on the loop's thread. Only the first call starts it;
    /// after `stop` nothing starts.
    package func start(_ body: @escaping @Sendable () -> Void) {
        phase.withLock { phase in
            guard case .idle = phase else { return }
            phase = .running(JoinableThread.start(name: name, body))
        }
    }

    /// Whether the thread was started and not yet stopped.
    package var isRunning: Bool {
        phase.withLock { phase in
            if case .running = phase { return true }
            return false
        }
    }

    package var isStopping: Bool {
        stopping.load(ordering: .acquiring)
    }

    /// Cuts the loop's current or next `wait` short.
    package func wake() {
        signal.wake()
    }

    /// Called by the loop: returns after `timeout`, or on `wake()` or
    /// `stop()`. A wake while the loop is busy ends its next wait, so a loop
    /// that checks `isStopping` before each wait never sleeps through a stop.
    package func wait(timeout: Duration) {
        signal.wait(timeout: timeout)
    }

    /// Sets the stop flag, wakes the loop and waits for its body to return.
    /// Returns false when there was nothing to stop (never started, or
    /// already stopped). From the loop's own thread it does not wait.
    @discardableResult
    package func stop() -> Bool {
        stopping.store(true, ordering: .releasing)
        signal.wake()
        let previous = phase.withLock { phase -> Phase in
            defer { phase = .stopped }
            return phase
        }
        guard case .running(let thread) = previous else { return false }
        thread.join()
        return true
    }
}
