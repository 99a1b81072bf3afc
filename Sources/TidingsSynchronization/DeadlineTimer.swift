/// Runs short actions at their deadlines, on one thread for the whole
/// process: the one place in Tidings that sleeps until a time. Extraction
/// time limits (`ThreadPool`), XPath interruption and per-host waits in the
/// poller schedule here.
///
/// Scheduling costs a lock and a heap insertion. The thread is woken only
/// when a new deadline is earlier than the one it sleeps toward, so on the
/// poller's hot path (a time limit armed and cancelled per extraction, each
/// due seconds later) it wakes about once per time limit, not once per
/// extraction: a dispatch timer per extraction had cost 2 % of the
/// poller's CPU (docs/BENCHMARKS.md).
///
/// Actions run one at a time on the timer's thread, outside its lock, so
/// they may schedule and cancel; they must be short and never block, or
/// every later deadline in the process is late. The thread starts with
/// the first action and lives as long as the process.
package final class DeadlineTimer: Sendable {
    /// A scheduled action, for `cancel`.
    package struct Handle: Sendable {
        fileprivate let id: UInt64
    }

    package typealias Action = @Sendable () -> Void

    package static let shared = DeadlineTimer(name: "tidings.deadlines")

    private let schedule = AdaptiveMutex(DeadlineSchedule<Action>())
    private let loop: WorkerLoop
    /// How long the thread sleeps with nothing scheduled (a new action
    /// wakes it anyway).
    private static let idleWait: Duration = .seconds(3600)

    private init(name: String) {
        loop = WorkerLoop(name: name)
    }

    /// Runs `action` on the timer's thread once `deadline` has passed
    /// (at once if it has already), unless cancelled first.
    @discardableResult
    package func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping Action) -> Handle {
        let (id, isEarliest) = schedule.withLock { $0.add(action, at: deadline) }
        if isEarliest {
            loop.start { [self] in run() }
            loop.wake()
        }
        return Handle(id: id)
    }

    /// Unschedules the action; false if it has run or is running already.
    @discardableResult
    package func cancel(_ handle: Handle) -> Bool {
        schedule.withLock { $0.remove(handle.id) } != nil
    }

    private func run() {
        while true {
            let now = ContinuousClock.now
            let (due, wakesAt) = schedule.withLock { schedule in
                (schedule.takeDue(at: now), schedule.wakesAt)
            }
            for action in due { action() }
            // Running them took time: look again before sleeping.
            guard due.isEmpty else { continue }
            loop.wait(timeout: wakesAt.map { max(now.duration(to: $0), .zero) } ?? Self.idleWait)
        }
    }
}
