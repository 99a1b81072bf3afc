#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A dedicated, joinable OS thread. The driver blocks in curl_multi_poll, so
/// it must not occupy a thread of Swift's cooperative pool.
enum DriverThread {
    private final class Body {
        let run: @Sendable () -> Void

        init(run: @escaping @Sendable () -> Void) {
            self.run = run
        }
    }

    /// Starts `run` on a new thread.
    static func start(_ run: @escaping @Sendable () -> Void) throws(HTTPClientError) -> pthread_t {
        let body = Unmanaged.passRetained(Body(run: run))
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, body.toOpaque())
        guard status == 0 else {
            body.release()
            throw HTTPClientError(code: .transport, message: "could not start the HTTP client thread (error \(status))")
        }
        return thread
    }

    /// Waits for the thread to end; from the thread itself (a completion
    /// handler shutting the client down) it detaches instead of deadlocking.
    static func finish(_ thread: pthread_t) {
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }
}
