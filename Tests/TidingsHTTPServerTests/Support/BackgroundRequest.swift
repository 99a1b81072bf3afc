import Dispatch
import TidingsSynchronization
import TidingsTestSupport

/// A request sent on a connection of its own from another thread, for
/// tests whose handler blocks until the test releases it.
final class BackgroundRequest: Sendable {
    private let outcome = AdaptiveMutex<Result<RawHTTPResponse, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(port: Int, _ method: String, _ target: String) {
        DispatchQueue.global().async {
            let result = Result { try RawHTTPConnection(port: port).request(method, target) }
            self.outcome.withLock { $0 = result }
            self.done.signal()
        }
    }

    /// The response; nil when none came within `timeout`. Throws what the
    /// client failed with.
    func response(timeout: DispatchTimeInterval = .seconds(10)) throws -> RawHTTPResponse? {
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return try outcome.withLock { $0 }?.get()
    }
}
