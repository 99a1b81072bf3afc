import FoundationEssentials

/// What the API needs of the poller: check one target now. The REST layer
/// sees this and nothing else of the engine.
public protocol TargetCheckRunner: Sendable {
    /// Checks the target now and waits for the result to be written; nil
    /// when another check of it is running. Throws `CheckNowTimeout` when
    /// the check outlives the caller's wait (it goes on and is written).
    func checkNow(targetID: UUID) throws -> [UUID: WatchCheckResult]?
}

/// `checkNow` gave up waiting; the check goes on and is written when done.
public struct CheckNowTimeout: Error, Sendable {
    public let timeout: Duration

    public init(timeout: Duration) {
        self.timeout = timeout
    }
}
