package import FoundationEssentials
import TidingsSynchronization

/// When `FCMAccessToken` may use its cached access token, must fetch one,
/// or waits for the fetch in flight: a value-type state machine with the
/// time passed in, so every rule is tested without a server or a clock.
///
/// - One fetch at a time: requests during a fetch wait for its result.
/// - A token is used until `refreshMargin` before it expires (at most 5
///   minutes, at most half its lifetime), then fetched anew.
/// - FCM refusing a token (401) drops it, so the next request fetches;
///   but a token that was itself fetched because of such a refusal is not
///   dropped again within `minimumForcedInterval`, so a broken FCM cannot
///   make Tidings hit the token endpoint on every push.
/// - After a failed fetch, requests fail at once with the same error for
///   `transientCooldown` (the endpoint was down or answered garbage) or
///   `refusedCooldown` (it refused the account) instead of all fetching.
package struct FCMAccessTokenCache: Sendable {
    package static let longestRefreshMargin: Duration = .seconds(300)
    package static let minimumForcedInterval: Duration = .seconds(60)
    package static let transientCooldown: Duration = .seconds(5)
    package static let refusedCooldown: Duration = .seconds(60)

    package enum Decision: Equatable, Sendable {
        /// Send with this token.
        case use(String)
        /// Fetch a token, then report it with `fetched`.
        case fetch
        /// A fetch is in flight: wait for its result.
        case wait
        /// Fetching failed a moment ago: fail with this error.
        case fail(PushCredentialError)
    }

    private enum State: Sendable {
        case empty(forceNext: Bool)
        case fetching(forced: Bool)
        case ready(token: String, fetchedAt: Date, usableUntil: Date, forced: Bool)
        case failed(PushCredentialError, until: Date)
    }

    private var state = State.empty(forceNext: false)

    package init() {}

    /// What to do for a push about to be sent at `now`.
    package mutating func request(now: Date) -> Decision {
        switch state {
        case .ready(let token, _, let usableUntil, _) where now < usableUntil:
            return .use(token)
        case .ready:
            state = .fetching(forced: false)
            return .fetch
        case .fetching:
            return .wait
        case .empty(let forceNext):
            state = .fetching(forced: forceNext)
            return .fetch
        case .failed(let error, let until) where now < until:
            return .fail(error)
        case .failed:
            state = .fetching(forced: false)
            return .fetch
        }
    }

    /// The fetch ended. A granted token serves the waiting requests even
    /// when its lifetime is too short to keep it for later ones.
    package mutating func fetched(_ result: Result<FCMAccessGrant, PushCredentialError>, now: Date) {
        let forced: Bool
        if case .fetching(let wasForced) = state { forced = wasForced } else { forced = false }
        switch result {
        case .success(let grant):
            let margin = min(Self.longestRefreshMargin, grant.lifetime / 2)
            state = .ready(
                token: grant.accessToken,
                fetchedAt: now,
                usableUntil: now.addingTimeInterval((grant.lifetime - margin).inSeconds),
                forced: forced
            )
        case .failure(let error):
            let cooldown = error.isTransient ? Self.transientCooldown : Self.refusedCooldown
            state = .failed(error, until: now.addingTimeInterval(cooldown.inSeconds))
        }
    }

    /// FCM answered `token` with 401. Returns whether sending again is
    /// worth it: true when a fresh token will be (or already was) fetched,
    /// false when `token` was a forced refetch younger than
    /// `minimumForcedInterval`.
    package mutating func rejected(_ token: String, now: Date) -> Bool {
        guard case .ready(let current, let fetchedAt, _, let forced) = state, current == token else { return true }
        if forced, now.timeIntervalSince(fetchedAt) < Self.minimumForcedInterval.inSeconds {
            return false
        }
        state = .empty(forceNext: true)
        return true
    }
}
