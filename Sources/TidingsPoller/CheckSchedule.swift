import Foundation
import TidingsSynchronization

/// When a target is checked next. Pure, with the random source injected, so
/// it is tested without waiting.
struct CheckSchedule: Sendable {
    let jitter: Double
    let maximumBackoff: Duration

    /// After a successful check: one interval, moved earlier by up to
    /// `jitter` of it, so never later than the watches asked for, and
    /// targets that were created (or failed) together drift apart.
    func afterSuccess(now: Date, intervalSeconds: Int, random: Double) -> Date {
        let interval = Double(intervalSeconds)
        return now.addingTimeInterval(interval * (1 - jitter * random))
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
