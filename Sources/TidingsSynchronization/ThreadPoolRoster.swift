/// A `ThreadPool`'s decisions without its threads: which workers serve the
/// queue, which were abandoned with a job past its time limit, and how many
/// threads to start. Pure, so the rules are tested on their own.
///
/// A worker is *live* (serving the queue, idle or busy) or *abandoned*
/// (still running a job whose caller was answered without it). The pool
/// keeps `size` live workers: each abandonment gets a replacement at once,
/// as long as there are fewer than `size + abandonedThreadLimit` threads in
/// all. An abandoned worker never serves the queue again (its priority was
/// lowered for good), so it exits when its job returns; if the limit had
/// held back its replacement, the next `review` starts one then.
struct ThreadPoolRoster<Abandon> {
    /// A job whose caller gets its answer now, and what to tell it.
    struct Abandonment {
        let worker: Int
        /// The worker's kernel thread id, to lower its priority; nil if it
        /// has not registered yet (it cannot have started a job then).
        let thread: Int32?
        let abandon: Abandon
        var report: ThreadPoolAbandonment
    }

    /// What `review` found: jobs to abandon and workers to start.
    struct Review {
        var abandoned: [Abandonment] = []
        var starts: [Int] = []
    }

    private struct Worker {
        var thread: Int32?
        var deadline: ContinuousClock.Instant?
        var abandon: Abandon?
        var isAbandoned = false
    }

    let size: Int
    let abandonedThreadLimit: Int
    private var workers: [Int: Worker] = [:]
    private var nextWorker = 0
    /// Workers serving the queue, including those reserved but not started.
    private(set) var liveCount = 0
    private(set) var abandonedCount = 0
    /// Set by shutdown: no more threads are started.
    private var isClosed = false

    init(size: Int, abandonedThreadLimit: Int) {
        self.size = max(size, 1)
        self.abandonedThreadLimit = max(abandonedThreadLimit, 0)
    }

    /// The first `size` workers to start.
    mutating func initialWorkers() -> [Int] {
        refill()
    }

    mutating func started(_ worker: Int, thread: Int32) {
        workers[worker]?.thread = thread
    }

    /// The system refused the worker's thread; a later `review` tries again.
    mutating func failedToStart(_ worker: Int) {
        guard workers.removeValue(forKey: worker) != nil else { return }
        liveCount -= 1
    }

    /// A live worker took a job; past `deadline` (if any) `review`
    /// abandons it and hands `abandon` back.
    mutating func began(_ worker: Int, deadline: ContinuousClock.Instant?, abandon: Abandon?) {
        workers[worker]?.deadline = deadline
        workers[worker]?.abandon = abandon
    }

    /// The worker's job returned. True if it serves the queue again; false
    /// if it was abandoned meanwhile and must exit.
    mutating func ended(_ worker: Int) -> Bool {
        guard let state = workers[worker] else { return false }
        if state.isAbandoned {
            workers[worker] = nil
            abandonedCount -= 1
            return false
        }
        workers[worker]?.deadline = nil
        workers[worker]?.abandon = nil
        return true
    }

    /// A live worker found the queue drained at shutdown and exits.
    mutating func exited(_ worker: Int) {
        guard let state = workers.removeValue(forKey: worker), !state.isAbandoned else { return }
        liveCount -= 1
    }

    mutating func close() {
        isClosed = true
    }

    /// Abandons every job past its deadline at `now`, replacing each
    /// worker while the thread limit allows, and tops the live workers up
    /// to `size` where an earlier replacement was held back or refused.
    mutating func review(at now: ContinuousClock.Instant) -> Review {
        var review = Review()
        for (id, worker) in workers.sorted(by: { $0.key < $1.key }) {
            guard !worker.isAbandoned, let deadline = worker.deadline, deadline <= now, let abandon = worker.abandon else { continue }
            workers[id]?.isAbandoned = true
            workers[id]?.deadline = nil
            workers[id]?.abandon = nil
            liveCount -= 1
            abandonedCount += 1
            let replacement = refill()
            review.starts += replacement
            review.abandoned.append(
                Abandonment(
                    worker: id,
                    thread: worker.thread,
                    abandon: abandon,
                    report: ThreadPoolAbandonment(abandonedThreads: abandonedCount, isReplaced: !replacement.isEmpty)
                ))
        }
        review.starts += refill()
        return review
    }

    /// The earliest deadline of a live worker's job: when `review` has
    /// something to do next, short of a worker exiting.
    var nextDeadline: ContinuousClock.Instant? {
        workers.values.lazy.filter { !$0.isAbandoned }.compactMap(\.deadline).min()
    }

    /// Reserves workers up to `size` live ones, within the thread limit.
    private mutating func refill() -> [Int] {
        guard !isClosed else { return [] }
        let wanted = min(size - liveCount, size + abandonedThreadLimit - liveCount - abandonedCount)
        guard wanted > 0 else { return [] }
        return (0..<wanted).map { _ in
            let id = nextWorker
            nextWorker += 1
            workers[id] = Worker()
            liveCount += 1
            return id
        }
    }
}
