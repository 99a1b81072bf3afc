/// "`count` per `period`" as a token bucket: a burst of up to `count`
/// requests, then one more each `interval` (`period / count`). Written
/// `30/1m` in configuration.
package struct RatePolicy: Sendable, Equatable, CustomStringConvertible {
    package let count: Int
    package let period: Duration
    /// The time one token takes to come back.
    let interval: Duration
    /// The time an empty bucket takes to fill: `interval * count`, which can
    /// be a few attoseconds shorter than `period` after the division.
    let window: Duration

    /// `count` at least 1 and `period` greater than zero; configuration
    /// bounds both (1,000,000, ten years), so the products cannot overflow.
    package init(count: Int, per period: Duration) {
        precondition(count >= 1 && period > .zero, "a rate needs a positive count and period")
        self.count = count
        self.period = period
        interval = period / count
        window = interval * count
    }

    package var description: String {
        "\(count) per \(period)"
    }
}
