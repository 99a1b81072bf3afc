internal import CTidingsThread
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A fixed number of dedicated OS threads running jobs. For CPU-bound work
/// of unbounded length (extraction) that must not occupy Swift's
/// cooperative pool, whose threads (one per core) every task needs.
///
/// Jobs wait in a `FairQueue`: those of one fairness key (a tenant) run in
/// the order they came, and the keys with jobs waiting take turns, so one
/// key's long queue delays another key's job by at most one job per key.
///
/// A job given a time limit (`run(timeLimit:)`) that is still running past
/// it is abandoned: its caller is answered at once, a new thread takes the
/// worker's place so the pool keeps `size` threads for everyone else, and
/// the old thread finishes the job at the lowest CPU priority (nice 19),
/// drops the result and exits. At most `abandonedThreadLimit` threads run
/// beyond `size`; past that an abandoned worker is not replaced until an
/// abandoned job ends (`ThreadPoolRoster`). Reviews of the roster do the
/// abandoning and start the threads on the process's `DeadlineTimer`: at
/// the next job's deadline, and when an abandoned job ends.
package final class ThreadPool: @unchecked Sendable {
    private struct Job {
        let body: @Sendable () -> Void
        let timeLimit: Duration?
        let abandon: (@Sendable (ThreadPoolAbandonment) -> Void)?
    }

    /// Resumes a continuation once: the job's end and its abandonment may
    /// race, and whichever comes first answers the caller.
    private final class Answer: Sendable {
        private let given = Atomic<Bool>(false)

        func claim() -> Bool {
            !given.exchange(true, ordering: .acquiringAndReleasing)
        }
    }

    // Unchecked: `jobs`, `isStopping`, `roster`, `threads`,
    // `exitedThreads` and `nextReview` are touched only with `mutex`
    // held; `mutex` and `condition` are initialized once and live as long
    // as the pool.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Signals a queued job, and (broadcast) the stop and each worker's
    /// exit, which `shutdown` waits for.
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Queued jobs; a taken job leaves the queue at once, so what it
    /// captured (a whole response body, for extraction) is released when it
    /// ends.
    private var jobs = FairQueue<AnyHashable?, Job>()
    private var isStopping = false
    private typealias Roster = ThreadPoolRoster<@Sendable (ThreadPoolAbandonment) -> Void>
    private var roster: Roster
    /// Every worker's thread until it exits: live workers that exit at
    /// shutdown move to `exitedThreads` to be joined; abandoned ones
    /// detach themselves, since nobody should wait for them.
    private var threads: [Int: JoinableThread] = [:]
    private var exitedThreads: [JoinableThread] = []
    /// The review scheduled on the timer; nil with no deadline in view. A
    /// job with an earlier deadline moves it.
    private var nextReview: (at: ContinuousClock.Instant, handle: DeadlineTimer.Handle)?

    package let name: String

    /// How soon a review tries again when the system refused a thread.
    private static let retryStart: Duration = .seconds(1)
    /// The lowest priority (highest nice value) on Linux.
    private static let abandonedNice: Int32 = 19

    /// Starts `size` threads (at least one). Fails if the system refuses a
    /// thread; the ones already started are stopped.
    package init(name: String, size: Int, abandonedThreadLimit: Int = 0) throws(ThreadPoolError) {
        self.name = name
        roster = ThreadPoolRoster(size: size, abandonedThreadLimit: abandonedThreadLimit)
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        guard pthread_mutex_init(mutex, nil) == 0 else {
            mutex.deallocate()
            condition.deallocate()
            throw ThreadPoolError(message: "could not create the \(name) pool's mutex")
        }
        guard pthread_cond_init(condition, nil) == 0 else {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
            condition.deallocate()
            throw ThreadPoolError(message: "could not create the \(name) pool's condition variable")
        }
        let failure = locked { () -> ThreadStartError? in
            let workers = roster.initialWorkers()
            return start(workers).first
        }
        if let failure {
            stop()
            throw ThreadPoolError(message: "could not start a \(name) thread (\(failure))")
        }
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Abandoned jobs still running (for a gauge).
    package var abandonedThreadCount: Int {
        locked { roster.abandonedCount }
    }

    /// Queues `job` in the turn of `fairnessKey` (nil: the keyless jobs'
    /// turn); after `shutdown` it runs on the caller's thread, so a job is
    /// never lost.
    package func submit(fairnessKey: AnyHashable? = nil, _ job: @escaping @Sendable () -> Void) {
        enqueue(Job(body: job, timeLimit: nil, abandon: nil), key: fairnessKey)
    }

    /// Runs `body` on a pool thread and resumes the calling task with its
    /// result; the task's own thread is free meanwhile.
    package func run<Result: Sendable>(fairnessKey: AnyHashable? = nil, _ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            submit(fairnessKey: fairnessKey) { continuation.resume(returning: body()) }
        }
    }

    /// Like `run`, but once `body` has run for `timeLimit` (counted from
    /// when a thread takes it, not while it is queued) the task gets
    /// `.abandoned` instead of waiting; `body` runs on in the background
    /// and its result is dropped.
    package func run<Result: Sendable>(
        timeLimit: Duration,
        fairnessKey: AnyHashable? = nil,
        _ body: @escaping @Sendable () -> Result
    ) async -> ThreadPoolOutcome<Result> {
        await withCheckedContinuation { continuation in
            let answer = Answer()
            enqueue(
                Job(
                    body: {
                        let result = body()
                        if answer.claim() { continuation.resume(returning: .finished(result)) }
                    },
                    timeLimit: timeLimit,
                    abandon: { report in
                        if answer.claim() { continuation.resume(returning: .abandoned(report)) }
                    }
                ), key: fairnessKey)
        }
    }

    /// Lets the queued jobs finish, then stops and joins the threads; jobs
    /// still running past their time limit are abandoned meanwhile, and
    /// abandoned threads are not waited for. Call once, from outside the
    /// pool.
    package func stop() {
        locked { isStopping = true }
        check(pthread_cond_broadcast(condition), "pthread_cond_broadcast")
        let (exited, leftovers) = locked { () -> ([JoinableThread], [Job]) in
            while roster.liveCount > 0 {
                check(pthread_cond_wait(condition, mutex), "pthread_cond_wait")
            }
            roster.close()
            scheduleReview(at: nil)
            defer { exitedThreads.removeAll() }
            return (exitedThreads, jobs.removeAll())
        }
        for thread in exited { thread.join() }
        // Left only when abandoned jobs held every thread and the limit
        // kept new ones from starting: run here, so none is lost.
        for job in leftovers { job.body() }
    }

    private func enqueue(_ job: Job, key: AnyHashable?) {
        let queued = locked { () -> Bool in
            guard !isStopping else { return false }
            jobs.append(job, key: key)
            return true
        }
        guard queued else { return job.body() }
        check(pthread_cond_signal(condition), "pthread_cond_signal")
    }

    /// Starts threads for reserved workers; call with `mutex` held, so a
    /// worker is in `threads` before it can look itself up. Returns the
    /// refusals (those workers are given up; the next review retries).
    private func start(_ workers: [Int]) -> [ThreadStartError] {
        var failures: [ThreadStartError] = []
        for worker in workers {
            do {
                threads[worker] = try JoinableThread(name: "\(name).\(worker)") { [self] in work(worker) }
            } catch {
                roster.failedToStart(worker)
                failures.append(error)
            }
        }
        return failures
    }

    private func work(_ worker: Int) {
        let thread = CTidingsThread_id()
        locked { roster.started(worker, thread: thread) }
        while let job = next(worker) {
            job.body()
            let abandoned = locked { () -> JoinableThread? in
                guard !roster.ended(worker) else { return nil }
                // Its place may be free now (the limit held a replacement).
                // The timer's thread reviews: a thread starts with its
                // creator's nice value, and this one runs at 19.
                scheduleReview(at: .now)
                return threads.removeValue(forKey: worker)
            }
            if let abandoned {
                abandoned.join() // from the thread itself: detaches
                return
            }
        }
    }

    /// The next job, waiting for one; nil once stopping and drained.
    private func next(_ worker: Int) -> Job? {
        locked { () -> Job? in
            while jobs.isEmpty && !isStopping {
                check(pthread_cond_wait(condition, mutex), "pthread_cond_wait")
            }
            guard let job = jobs.popFirst() else {
                roster.exited(worker)
                if let thread = threads.removeValue(forKey: worker) { exitedThreads.append(thread) }
                check(pthread_cond_broadcast(condition), "pthread_cond_broadcast")
                return nil
            }
            let deadline = job.timeLimit.map { ContinuousClock.now.advanced(by: $0) }
            roster.began(worker, deadline: deadline, abandon: job.abandon)
            if let deadline, nextReview.map({ deadline < $0.at }) ?? true {
                scheduleReview(at: deadline)
            }
            return job
        }
    }

    /// Abandons overdue jobs, lowers their threads' priority, starts
    /// replacements, and schedules the next review.
    private func review() {
        let now = ContinuousClock.now
        let abandoned = locked { () -> [Roster.Abandonment] in
            var review = roster.review(at: now)
            for index in review.abandoned.indices {
                // Under the mutex the worker cannot have exited: it needs
                // the mutex to record its job's end.
                if let thread = review.abandoned[index].thread {
                    review.abandoned[index].report.priorityError = Self.lowerPriority(of: thread)
                }
            }
            let refused = !start(review.starts).isEmpty
            let retry = refused ? now + Self.retryStart : nil
            scheduleReview(at: [roster.nextDeadline, retry].compactMap { $0 }.min())
            return review.abandoned
        }
        if !abandoned.isEmpty {
            // Fewer live workers: `shutdown` may be waiting for none.
            check(pthread_cond_broadcast(condition), "pthread_cond_broadcast")
        }
        for abandonment in abandoned { abandonment.abandon(abandonment.report) }
    }

    /// Replaces the scheduled review with one at `instant` (none if nil);
    /// call with `mutex` held.
    private func scheduleReview(at instant: ContinuousClock.Instant?) {
        guard nextReview?.at != instant else { return }
        if let nextReview { DeadlineTimer.shared.cancel(nextReview.handle) }
        nextReview = instant.map { instant in
            (instant, DeadlineTimer.shared.schedule(at: instant) { [self] in review() })
        }
    }

    /// Runaway work gets only otherwise idle CPU. Nil on success, else the
    /// errno (a sandbox may refuse it; the job is abandoned all the same).
    private static func lowerPriority(of thread: Int32) -> Int32? {
        let status = CTidingsThread_setNice(thread, abandonedNice)
        return status == 0 ? nil : status
    }

    private func locked<Value>(_ body: () -> Value) -> Value {
        check(pthread_mutex_lock(mutex), "pthread_mutex_lock")
        defer { check(pthread_mutex_unlock(mutex), "pthread_mutex_unlock") }
        return body()
    }

    /// These calls fail only when misused (an uninitialized or foreign
    /// mutex, joining twice): a bug here, never an input.
    private func check(_ status: Int32, _ call: StaticString) {
        precondition(status == 0, "\(call) failed with error \(status)")
    }
}

package struct ThreadPoolError: Error, Sendable, CustomStringConvertible {
    package let message: String

    package var description: String { message }
}
