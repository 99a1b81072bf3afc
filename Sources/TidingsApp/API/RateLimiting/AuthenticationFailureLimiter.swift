import FoundationEssentials
import TidingsHTTPServer
import TidingsIP
import TidingsSynchronization

/// Failed credential checks per client address (an IPv4 address, an IPv6
/// /64), so that unauthenticated clients cannot make the database look up
/// keys that do not exist as fast as they can send them.
///
/// A credential the database does not know (an API key, a stream token)
/// takes a token from its client's bucket; a client with none left gets 429
/// before anything is looked up, for every credential but the admin token
/// and keys already in `CredentialCache`, which cost no query. Known keys
/// take nothing, so only clients that keep failing are stopped. In memory,
/// per process (decision 0022), kept in a `TokenBucketTable`.
final class AuthenticationFailureLimiter: Sendable {
    typealias Instant = ContinuousClock.Instant

    let policy: RatePolicy
    private let buckets = AdaptiveMutex(TokenBucketTable<IPAddress>())

    init(policy: RatePolicy) {
        self.policy = policy
    }

    /// Throws 429 when `client` has used up its failures; nil (unknown
    /// address, as for requests made in-process) is never limited.
    func admit(_ client: IPAddress?, now: Instant = .now) throws(HTTPError) {
        guard let client else { return }
        let decision = buckets.withLock { $0.bucket(client, policy: policy).decision(now: now) }
        guard case .limited(let retryAfter) = decision else { return }
        let seconds = max(1, retryAfter.roundedUpSeconds)
        throw HTTPError(
            .tooManyRequests,
            detail:
                "Too many failed credentials from this address: at most \(policy.count) per \(RateLimitedAction.describe(policy.period)). "
                + "Try again in \(seconds) s.",
            title: "Rate limited",
            type: HTTPError.rateLimitedType,
            headers: ["Retry-After": String(seconds)],
            extensions: ["limit": "credential_failures_per_address"],
            integerExtensions: ["retry_after": Int(clamping: seconds)]
        )
    }

    /// Counts a credential the database did not know.
    func failed(_ client: IPAddress?, now: Instant = .now) {
        guard let client else { return }
        buckets.withLock { buckets in
            var bucket = buckets.bucket(client, policy: policy)
            _ = bucket.take(now: now)
            buckets.store(bucket, for: client, now: now)
        }
    }

    /// The address a request's failures count against.
    static func client(of request: HTTPRequest) -> IPAddress? {
        request.remoteAddress.flatMap { IPAddress($0) }.map(\.clientKey)
    }
}
