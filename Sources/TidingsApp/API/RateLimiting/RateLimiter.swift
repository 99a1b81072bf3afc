import FoundationEssentials
import TidingsSynchronization

/// The rate limits of one action (checks asked for through the API, or
/// webhook test events): a `TokenBucket` per caller and one per subject
/// (the watch or the webhook). A request needs a token from both, and a
/// refused one takes from neither, so a user stopped by its own limit does
/// not also use up the subject's.
///
/// In memory, per process: behind a balancer, N replicas let a user go up
/// to N times the rate (decision 0022). The buckets are kept in a
/// `TokenBucketTable`, whose memory follows the callers active in the last
/// window.
final class RateLimiter: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// Which of the two limits stopped a request.
    enum Scope: Sendable, Equatable {
        case caller
        case subject
    }

    enum Admission: Sendable, Equatable {
        case admitted
        /// Try again after `retryAfter` (the longer wait when both limits
        /// stopped it; `scope` names that one).
        case limited(retryAfter: Duration, scope: Scope)
    }

    /// A subject's bucket is keyed by the caller too: only its owner can
    /// reach a watch or webhook, so for real ones this is the same as the
    /// subject alone, and a caller naming someone else's id (a 404) cannot
    /// use up the owner's bucket.
    private enum Key: Hashable, Sendable {
        case caller(UUID)
        case subject(caller: UUID?, id: UUID)
    }

    /// Below this many buckets the table is never swept.
    static var smallestSweepThreshold: Int { TokenBucketTable<Key>.smallestSweepThreshold }

    let perCaller: RatePolicy
    let perSubject: RatePolicy
    private let buckets = AdaptiveMutex(TokenBucketTable<Key>())

    init(perCaller: RatePolicy, perSubject: RatePolicy) {
        self.perCaller = perCaller
        self.perSubject = perSubject
    }

    /// Admits one request of `caller` (nil: a caller without its own limit,
    /// the admin) about `subject` at `now`, or says how long to wait.
    func admit(caller: UUID?, subject: UUID, now: Instant = .now) -> Admission {
        buckets.withLock { buckets -> Admission in
            let callerKey = caller.map(Key.caller)
            let subjectKey = Key.subject(caller: caller, id: subject)
            let callerBucket = callerKey.map { buckets.bucket($0, policy: perCaller) }
            var subjectBucket = buckets.bucket(subjectKey, policy: perSubject)

            var wait: (retryAfter: Duration, scope: Scope)?
            if case .limited(let retryAfter) = callerBucket?.decision(now: now) {
                wait = (retryAfter, .caller)
            }
            if case .limited(let retryAfter) = subjectBucket.decision(now: now), retryAfter > wait?.retryAfter ?? .zero {
                wait = (retryAfter, .subject)
            }
            if let wait { return .limited(retryAfter: wait.retryAfter, scope: wait.scope) }

            if let callerKey, var bucket = callerBucket {
                _ = bucket.take(now: now)
                buckets.store(bucket, for: callerKey, now: now)
            }
            _ = subjectBucket.take(now: now)
            buckets.store(subjectBucket, for: subjectKey, now: now)
            return .admitted
        }
    }

    /// Takes a token from `caller`'s own bucket only, if it has one: for
    /// work a request causes besides the action itself (a watch created or
    /// edited makes its target due now, as a check would).
    func admitCaller(_ caller: UUID, now: Instant = .now) -> Bool {
        buckets.withLock { buckets -> Bool in
            var bucket = buckets.bucket(.caller(caller), policy: perCaller)
            guard case .admitted = bucket.decision(now: now) else { return false }
            _ = bucket.take(now: now)
            buckets.store(bucket, for: .caller(caller), now: now)
            return true
        }
    }

    /// Buckets held now (for tests and metrics).
    var bucketCount: Int {
        buckets.withLock { $0.count }
    }
}
