import Foundation

/// Runs a body on many real threads at once: the pool's callers block, so
/// Dispatch's small worker pool (or Swift's cooperative one) would not give
/// real concurrency on a two-core machine.
enum ConcurrentThreads {
    /// Starts `count` threads that all begin together and returns once every
    /// one has finished, or false after `timeout`.
    @discardableResult
    static func run(count: Int, timeout: Duration = .seconds(60), _ body: @escaping @Sendable (Int) -> Void) -> Bool {
        let start = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for index in 0..<count {
            finished.enter()
            let thread = Thread {
                start.wait()
                body(index)
                finished.leave()
            }
            thread.start()
        }
        for _ in 0..<count {
            start.signal()
        }
        let (seconds, attoseconds) = timeout.components
        return finished.wait(timeout: .now() + .seconds(Int(seconds)) + .nanoseconds(Int(attoseconds / 1_000_000_000))) == .success
    }
}
