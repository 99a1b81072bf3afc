import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Blocks the calling thread until SIGINT or SIGTERM arrives. The signals'
/// default actions are disabled so that the process can shut down in order.
package enum ShutdownSignal {
    /// Returns the name of the signal that arrived.
    package static func wait() -> String {
        let arrived = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "tidings.signals")
        let received = SignalName()
        var sources: [DispatchSourceSignal] = []
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                received.set(name)
                arrived.signal()
            }
            source.resume()
            sources.append(source)
        }
        arrived.wait()
        sources.forEach { $0.cancel() }
        return received.get()
    }
}

import TidingsSynchronization

private final class SignalName: Sendable {
    private let name = AdaptiveMutex("")

    func set(_ value: String) {
        name.withLock { if $0.isEmpty { $0 = value } }
    }

    func get() -> String {
        name.withLock { $0 }
    }
}
