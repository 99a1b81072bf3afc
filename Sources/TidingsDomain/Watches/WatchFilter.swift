/// Optional conditions on a watch list; nil means "any".
package struct WatchFilter: Sendable {
    package var paused: Bool?
    package var state: WatchState?

    package init(paused: Bool? = nil, state: WatchState? = nil) {
        self.paused = paused
        self.state = state
    }
}
