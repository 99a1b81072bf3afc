import Foundation
import TidingsSynchronization

/// When a target is checked next. Pure, with the clock and the random
/// source passed in, so it is tested without waiting (decision 0028).
struct CheckSchedule: Sendable {
    let jitter: Double
    let maximumBackoff: Duration

    /// After a quiet stretch the next delay is this fraction of how long the
    /// content has stayed the same (the heuristic fraction of RFC 9111
    /// §4.2.2): a page unchanged for a day waits 2.4 h, within its bounds,
    /// and a page that changes at least every ten intervals never backs off.
    static let unchangedFraction = 0.1

    /// After a successful check: the delay within the target's bounds, then
    /// moved earlier by up to `jitter` of it, so never later than the
    /// watches allow, and targets added (or failed) together drift apart.
    func afterSuccess(now: Date, bounds: CheckBounds, unchangedSince: Date, cacheLifetime: Duration?, random: Double) -> Date {
        let delay = Self.delayAfterSuccess(now: now, bounds: bounds, unchangedSince: unchangedSince, cacheLifetime: cacheLifetime)
        return now.addingTimeInterval(delay * (1 - jitter * min(max(random, 0), 1)))
    }

    /// The delay before jitter, in seconds, from `bounds.interval` to
    /// `bounds.maximum`: the longer of the interval, a tenth of the time the
    /// content has stayed the same, and the origin's remaining freshness
    /// (`Cache-Control: max-age`, `Expires`), cut at the maximum. A watch
    /// whose maximum is its interval is checked every interval, whatever the
    /// content or the headers do.
    static func delayAfterSuccess(now: Date, bounds: CheckBounds, unchangedSince: Date, cacheLifetime: Duration?) -> Double {
        let interval = Double(bounds.intervalSeconds)
        let unchangedFor = max(now.timeIntervalSince(unchangedSince), 0)
        var delay = max(interval, unchangedFor * unchangedFraction)
        if let cacheLifetime { delay = max(delay, cacheLifetime.inSeconds) }
        return min(delay, Double(bounds.maximumSeconds))
    }

    /// After a failure: the interval doubled for each earlier consecutive
    /// failure, capped at `maximumBackoff`, with the upper quarter random;
    /// a Retry-After longer than that wins (capped too).
    func afterFailure(now: Date, intervalSeconds: Int, previousFailures: Int, retryAfter: Duration?, random: Double) -> Date {
        let cap = maximumBackoff.inSeconds
        let doubled = Double(intervalSeconds) * pow(2, Double(min(previousFailures, 30)))
        var delay = min(doubled, cap) * (0.75 + 0.25 * random)
        if let retryAfter {
            delay = max(delay, min(retryAfter.inSeconds, cap))
        }
        return now.addingTimeInterval(delay)
    }
}

/// A target's schedule bounds, from its unpaused watches (migration 0024):
/// the shortest interval, and the shortest maximum, never below it.
struct CheckBounds: Sendable, Equatable {
    let intervalSeconds: Int
    let maximumSeconds: Int

    init(intervalSeconds: Int, maximumSeconds: Int) {
        self.intervalSeconds = max(intervalSeconds, 1)
        self.maximumSeconds = max(maximumSeconds, self.intervalSeconds)
    }
}
