import FoundationEssentials

/// Token buckets by key, the store of `RateLimiter` and
/// `AuthenticationFailureLimiter`.
///
/// Memory follows the requests of the last window, not the keys ever seen:
/// only buckets that are not full are kept (a full one is the same as
/// none), and full ones are swept out whenever the table has doubled since
/// the last sweep, which costs amortized O(1) per request. A bucket that is
/// kept stands for an admitted request within its window, and each key's
/// admissions are bounded by its own rate, so the table is bounded by the
/// keys active in the last window times their rate.
struct TokenBucketTable<Key: Hashable & Sendable>: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// Below this many buckets the table is never swept.
    static var smallestSweepThreshold: Int { 1024 }

    private var buckets: [Key: TokenBucket<Instant>] = [:]
    private var sweepAt = Self.smallestSweepThreshold

    /// The key's bucket; a new (full) one when none is kept.
    func bucket(_ key: Key, policy: RatePolicy) -> TokenBucket<Instant> {
        buckets[key] ?? TokenBucket(policy: policy)
    }

    /// Keeps a bucket a token was taken from, sweeping when due.
    mutating func store(_ bucket: TokenBucket<Instant>, for key: Key, now: Instant) {
        buckets[key] = bucket
        guard buckets.count >= sweepAt else { return }
        buckets = buckets.filter { !$0.value.isFull(now: now) }
        sweepAt = max(Self.smallestSweepThreshold, buckets.count * 2)
    }

    var count: Int {
        buckets.count
    }
}
