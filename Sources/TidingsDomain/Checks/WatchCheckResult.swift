package import FoundationEssentials

/// What was written for one watch: the result, and the change it recorded.
package struct WatchCheckResult: Sendable {
    package let watchID: UUID
    package let result: CheckResult
    package let changeID: UUID?
    package let state: WatchState
    package let error: String?

    package init(watchID: UUID, result: CheckResult, changeID: UUID?, state: WatchState, error: String?) {
        self.watchID = watchID
        self.result = result
        self.changeID = changeID
        self.state = state
        self.error = error
    }
}
