internal import CTidingsThread

#if canImport(Glibc)
import Glibc
#endif

/// The one way Tidings starts an OS thread of its own: named, and joinable
/// once. Engines block in libpq, curl_multi_poll and semaphores, which must
/// not happen on Swift's cooperative pool (one thread per core here).
package final class JoinableThread: Sendable {
    private final class Start {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    // pthread_t is an integer on Linux: a plain, immutable value.
    private let thread: pthread_t

    /// Starts `body` on a new thread called `name`. Throws when the system
    /// refuses a thread.
    package init(name: String, _ body: @escaping @Sendable () -> Void) throws(ThreadStartError) {
        let start = Unmanaged.passRetained(Start(name: name, body: body))
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                let start = Unmanaged<Start>.fromOpaque(context).takeRetainedValue()
                // For debuggers and `top -H`. Not through Foundation's Thread:
                // this module stays free of Foundation, whose ICU clashes with
                // libxml2's in TidingsExtraction. The kernel keeps 15 bytes, so
                // the common "tidings." prefix goes.
                let kernelName = start.name.hasPrefix("tidings.") ? String(start.name.dropFirst(8)) : start.name
                _ = CTidingsThread_setName(kernelName)
                start.body()
                return nil
            }, start.toOpaque())
        guard status == 0 else {
            start.release()
            throw ThreadStartError(name: name, status: status)
        }
        self.thread = thread
    }

    /// Starts an engine's own thread, started once with the engine: if the
    /// system refuses it the service cannot run, so this stops the process
    /// (as Foundation's `Thread.start` does) instead of returning an error.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) -> JoinableThread {
        do {
            return try JoinableThread(name: name, body)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// Waits for the body to return. Call once. From the thread itself (a
    /// completion handler shutting its own engine down) it detaches instead
    /// of deadlocking.
    package func join() {
        if pthread_equal(thread, pthread_self()) != 0 {
            precondition(pthread_detach(thread) == 0, "pthread_detach failed")
        } else {
            precondition(pthread_join(thread, nil) == 0, "pthread_join failed")
        }
    }

    /// Lets the thread end on its own, unwaited (a service that did not
    /// stop by its deadline). Call instead of `join`, once.
    package func detach() {
        precondition(pthread_detach(thread) == 0, "pthread_detach failed")
    }
}

/// The system would not start a thread (resource limits).
package struct ThreadStartError: Error, Sendable, CustomStringConvertible {
    package let name: String
    package let status: Int32

    package var description: String {
        "could not start thread \(name) (error \(status))"
    }
}
