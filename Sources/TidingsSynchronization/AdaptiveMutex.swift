#if canImport(Glibc)
import Glibc
#endif

/// A value behind a glibc adaptive mutex: a waiter spins briefly before it
/// sleeps on a plain futex. Tidings' one lock, instead of
/// `Synchronization.Mutex`, for two reasons:
///
/// - Speed. `Mutex` on Linux is a priority-inheritance futex that sleeps in
///   the kernel at once; with more HTTP threads than cores, the per-request
///   access-log line and metric updates queued behind preempted holders and
///   the kernel handoffs took a third of the server's CPU (perf, 16
///   threads: `GET /healthz` 16-24k instead of 80k req/s), and so did the
///   database pool's lease and release.
/// - ThreadSanitizer. `Mutex` (Swift 6.3) hands a contended lock over in
///   uninstrumented code (a spin and `syscall(SYS_futex)` inside
///   libswiftSynchronization), so TSan sees no happens-before edge and
///   reports the values it guards as raced whenever two threads met at the
///   lock. TSan intercepts pthread mutexes, so its reports on values behind
///   this lock are real (docs/FUZZING.md).
///
/// Like `Mutex`, the value goes in and results come out as `sending`, so
/// region checking treats it the same way.
///
/// Public, with `withLock` inlinable, so that each caller's critical
/// section is specialized and inlined in its own module: Swift 6.3
/// specializes no generic `package` type across modules (decision 0060).
public final class AdaptiveMutex<Value>: @unchecked Sendable {
    // Unchecked: `value` is touched only with `mutex` held. It lives behind
    // a pointer, as Mutex's does, not in a stored property: an inout access
    // to a class's stored property is an exclusivity check at run time,
    // which ThreadSanitizer sees as a write at the property's address, and
    // for an empty value (`AdaptiveMutex(())`) that address was the
    // object's header, which every caller reads before it locks (a false
    // report from the launched tidings under make test-sanitize).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let value: UnsafeMutablePointer<Value>

    package init(_ initialValue: sending Value) {
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        Self.check(pthread_mutexattr_init(&attributes), "pthread_mutexattr_init")
        Self.check(pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP)), "pthread_mutexattr_settype")
        let created = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        Self.check(created, "pthread_mutex_init")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    @inlinable
    package func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        lock()
        defer { unlock() }
        return try body(&value.pointee)
    }

    // Not inlinable: glibc is this module's own import.
    @usableFromInline func lock() {
        Self.check(pthread_mutex_lock(mutex), "pthread_mutex_lock")
    }

    @usableFromInline func unlock() {
        Self.check(pthread_mutex_unlock(mutex), "pthread_mutex_unlock")
    }

    /// These calls fail only on a corrupt or misused mutex (EINVAL, EDEADLK,
    /// EPERM), where going on would break mutual exclusion silently: stop.
    private static func check(_ status: Int32, _ call: StaticString) {
        precondition(status == 0, "\(call) failed with error \(status)")
    }
}
