/// Optional conditions on a watch list; nil means "any".
public struct WatchFilter: Sendable {
    public var paused: Bool?
    public var state: WatchState?

    public init(paused: Bool? = nil, state: WatchState? = nil) {
        self.paused = paused
        self.state = state
    }
}
