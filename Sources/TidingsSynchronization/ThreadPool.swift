#if canImport(Glibc)
import Glibc
#endif

/// A fixed number of dedicated OS threads running jobs in FIFO order. For
/// CPU-bound work of unbounded length (extraction) that must not occupy
/// Swift's cooperative pool, whose threads (one per core) every task needs.
package final class ThreadPool: @unchecked Sendable {
    // Unchecked: `jobs`, `isStopping` and `threads` are touched only with
    // `mutex` held; `mutex` and `condition` are initialized once and live
    // as long as the pool.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Queued jobs from `head` on; a taken job's slot is emptied at once,
    /// so what it captured (a whole response body, for extraction) is
    /// released when it ends, not when the array is next compacted.
    private var jobs: [(@Sendable () -> Void)?] = []
    private var head = 0
    private var isStopping = false
    private var threads: [JoinableThread] = []

    package let name: String

    /// Starts `size` threads (at least one). Fails if the system refuses a
    /// thread; the ones already started are stopped.
    package init(name: String, size: Int) throws(ThreadPoolError) {
        self.name = name
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
        for index in 0..<max(size, 1) {
            do {
                let worker = try JoinableThread(name: "\(name).\(index)") { [self] in work() }
                locked { threads.append(worker) }
            } catch {
                shutdown()
                throw ThreadPoolError(message: "could not start a \(name) thread (\(error))")
            }
        }
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Queues `job`; after `shutdown` it runs on the caller's thread, so a
    /// job is never lost.
    package func submit(_ job: @escaping @Sendable () -> Void) {
        let queued = locked { () -> Bool in
            guard !isStopping else { return false }
            jobs.append(job)
            return true
        }
        guard queued else { return job() }
        check(pthread_cond_signal(condition), "pthread_cond_signal")
    }

    /// Runs `body` on a pool thread and resumes the calling task with its
    /// result; the task's own thread is free meanwhile.
    package func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: body()) }
        }
    }

    /// Lets the queued jobs finish, then stops and joins the threads.
    /// Call once, from outside the pool.
    package func shutdown() {
        let started = locked { () -> [JoinableThread] in
            isStopping = true
            defer { threads.removeAll() }
            return threads
        }
        check(pthread_cond_broadcast(condition), "pthread_cond_broadcast")
        for thread in started { thread.join() }
    }

    private func work() {
        while let job = next() { job() }
    }

    /// The next job, waiting for one; nil once stopping and drained.
    private func next() -> (@Sendable () -> Void)? {
        locked {
            while head == jobs.count && !isStopping {
                check(pthread_cond_wait(condition, mutex), "pthread_cond_wait")
            }
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            // Drop the emptied slots once they are the bulk of the array.
            if head >= 64 && head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
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
