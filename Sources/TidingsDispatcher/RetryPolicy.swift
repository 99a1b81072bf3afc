import TidingsSynchronization

/// What follows an attempt, decided from its result alone: pure logic,
/// tested without a network or a clock.
package struct RetryPolicy: Sendable {
    package static let defaultSchedule: [Duration] = [
        .zero, .seconds(5), .seconds(300), .seconds(1800), .seconds(7200), .seconds(18_000), .seconds(36_000), .seconds(36_000),
    ]
    /// Retry delays vary by this fraction either way, so receivers that
    /// failed together are not hit again all at the same instant.
    package static let jitter = 0.2
    /// Statuses whose `Retry-After` is honoured.
    package static let retryAfterStatuses: Set<Int> = [429, 502, 503, 504]

    package enum Decision: Sendable, Equatable {
        case succeeded
        case retry(after: Duration)
        /// No attempt left.
        case failed
        /// 410: stop, and disable the webhook.
        case gone
    }

    package let schedule: [Duration]
    /// The longest step of the schedule: a receiver's `Retry-After` is
    /// honoured up to this, so no receiver can park a delivery for longer
    /// than the schedule itself would.
    package let longestRetryAfter: Duration

    package init(schedule: [Duration]) {
        precondition(!schedule.isEmpty, "a retry schedule has at least one attempt")
        self.schedule = schedule
        longestRetryAfter = schedule.max() ?? .zero
    }

    /// `attemptsMade` counts this attempt; `statusCode` is nil when no
    /// response arrived. `random` returns a value in the given range.
    package func decide(
        attemptsMade: Int,
        statusCode: Int?,
        retryAfter: Duration?,
        random: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
    ) -> Decision {
        if let statusCode, (200...299).contains(statusCode) { return .succeeded }
        if statusCode == 410 { return .gone }
        let honoured = statusCode.map(Self.retryAfterStatuses.contains) == true ? retryAfter : nil
        guard let delay = retryDelay(attemptsMade: attemptsMade, retryAfter: honoured, random: random) else { return .failed }
        return .retry(after: delay)
    }

    /// The wait before the next attempt, or nil when `attemptsMade` used
    /// the schedule up: the step with jitter, or the peer's `retryAfter`
    /// (capped at the longest step) when that is longer.
    package func retryDelay(
        attemptsMade: Int,
        retryAfter: Duration?,
        random: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
    ) -> Duration? {
        guard attemptsMade < schedule.count else { return nil }
        let delay = schedule[attemptsMade] * random((1 - Self.jitter)...(1 + Self.jitter))
        guard let retryAfter else { return delay }
        return max(delay, retryAfter.clamped(to: .zero...longestRetryAfter))
    }
}
