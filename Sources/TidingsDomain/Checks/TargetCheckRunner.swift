package import FoundationEssentials

/// What the API needs of the poller: check one target now. The REST layer
/// sees this and nothing else of the engine.
package protocol TargetCheckRunner: Sendable {
    /// Checks the target now and waits for the result to be written; nil
    /// when another check of it is running. Throws `CheckNowTimeout` when
    /// the check outlives the caller's wait (it goes on and is written).
    func checkNow(targetID: UUID) throws -> [UUID: WatchCheckResult]?
}

/// `checkNow` gave up waiting; the check goes on and is written when done.
package struct CheckNowTimeout: Error, Sendable {
    package let timeout: Duration

    package init(timeout: Duration) {
        self.timeout = timeout
    }
}
