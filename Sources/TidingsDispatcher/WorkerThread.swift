import Foundation

/// A dedicated OS thread that can be waited for: the dispatcher blocks in
/// libpq and on semaphores, which must not happen on Swift's cooperative pool.
final class WorkerThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    init(name: String, _ body: @escaping @Sendable () -> Void) {
        let finished = self.finished
        let thread = Thread {
            body()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Blocks until the body has returned. Call once.
    func join() {
        finished.wait()
    }
}
