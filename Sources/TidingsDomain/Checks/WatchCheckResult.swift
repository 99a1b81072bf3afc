import FoundationEssentials

/// What was written for one watch: the result, and the change it recorded.
public struct WatchCheckResult: Sendable {
    public let watchID: UUID
    public let result: CheckResult
    public let changeID: UUID?
    public let state: WatchState
    public let error: String?

    public init(watchID: UUID, result: CheckResult, changeID: UUID?, state: WatchState, error: String?) {
        self.watchID = watchID
        self.result = result
        self.changeID = changeID
        self.state = state
        self.error = error
    }
}
