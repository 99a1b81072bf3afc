import FoundationEssentials
import TidingsHTTPServer
import TidingsSynchronization

/// One action's rate limits as the API applies them: the limiter, and the
/// words and names a 429 uses for them.
struct RateLimitedAction: Sendable {
    /// The requests counted, plural: "checks", "test events".
    let action: String
    /// What the subject is: "watch", "webhook".
    let subject: String
    /// The `limit` member of the 429 for each limit, e.g. `checks_per_user`.
    let callerLimitName: String
    let subjectLimitName: String
    let limiter: RateLimiter

    /// Counts one request of `caller` (nil: the admin, limited per subject
    /// only) about `subject`, or throws 429 with `Retry-After`: whole seconds,
    /// rounded up and at least 1, so a client that waits that long finds a
    /// token.
    func admit(caller: UUID?, subject id: UUID) throws(HTTPError) {
        guard case .limited(let retryAfter, let scope) = limiter.admit(caller: caller, subject: id) else { return }
        let seconds = max(1, retryAfter.roundedUpSeconds)
        let (name, policy, whose) =
            switch scope {
            case .caller: (callerLimitName, limiter.perCaller, "by this user")
            case .subject: (subjectLimitName, limiter.perSubject, "of this \(subject)")
            }
        throw HTTPError(
            .tooManyRequests,
            detail: "Too many \(action) \(whose): at most \(policy.count) per \(Self.describe(policy.period)). Try again in \(seconds) s.",
            title: "Rate limited",
            type: HTTPError.rateLimitedType,
            headers: ["Retry-After": String(seconds)],
            extensions: ["limit": name],
            integerExtensions: ["retry_after": Int(clamping: seconds)]
        )
    }

    /// `20 s`, `1 min`, `1500 ms`: the period as configured.
    static func describe(_ period: Duration) -> String {
        let (seconds, attoseconds) = period.components
        guard attoseconds == 0 else { return "\(period.inMilliseconds) ms" }
        if seconds >= 60, seconds % 60 == 0 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }
}
