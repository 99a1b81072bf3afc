import Dispatch
package import TidingsSynchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM, taken from before the application starts so that
/// none is lost.
///
/// The signals are blocked in the thread that makes this, before any other
/// thread starts (every later thread inherits the mask), and taken with
/// `sigwait` on a thread of their own. A signal during startup stays
/// pending until then and shuts the service down in order as soon as it is
/// up. (Ignoring the signals and watching them with dispatch sources, as
/// before, discarded a signal already pending: a parent that started
/// Tidings with the signals blocked and sent SIGTERM during startup waited
/// forever.) A second signal ends the process at once: everything Tidings
/// holds survives SIGKILL, so it survives that too.
package final class ShutdownSignal: Sendable {
    private let arrived = DispatchSemaphore(value: 0)
    private let first = AdaptiveMutex<String?>(nil)
    /// Never joined: it waits for signals for as long as the process lives.
    private let waiter: JoinableThread

    package init() throws(ThreadStartError) {
        var signals = Self.signals
        let status = pthread_sigmask(SIG_BLOCK, &signals, nil)
        precondition(status == 0, "pthread_sigmask failed (\(status))")
        let arrived = arrived
        let first = first
        waiter = try JoinableThread(name: "tidings.signals") {
            var signals = Self.signals
            while true {
                var number: Int32 = 0
                guard sigwait(&signals, &number) == 0 else { continue }
                let name = number == SIGINT ? "SIGINT" : "SIGTERM"
                let isFirst = first.withLock { value -> Bool in
                    guard value == nil else { return false }
                    value = name
                    return true
                }
                guard isFirst else {
                    let message = "tidings: second \(name) during shutdown: exiting now\n"
                    _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
                    _exit(1)
                }
                arrived.signal()
            }
        }
    }

    /// Blocks until the first signal; returns its name.
    package func wait() -> String {
        arrived.wait()
        return first.withLock { $0 } ?? "SIGTERM"
    }

    private static var signals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }
}
