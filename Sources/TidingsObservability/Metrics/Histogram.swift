package import TidingsSynchronization

/// Observations counted into cumulative buckets, one series per label set.
package final class Histogram: Sendable {
    package static let defaultLatencyBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    struct Series {
        var bucketCounts: [UInt64]
        var count: UInt64 = 0
        var sum: Double = 0

        mutating func record(_ value: Double, inBucket index: Int) {
            bucketCounts[index] += 1
            count += 1
            sum += value
        }
    }

    package let name: String
    package let help: String
    package let buckets: [Double]
    private let series = AdaptiveMutex<[MetricLabels: Series]>([:])

    init(name: String, help: String, buckets: [Double]) {
        self.name = name
        self.help = help
        self.buckets = buckets.sorted()
    }

    package func observe(_ value: Double, labels: MetricLabels = [:]) {
        let index = buckets.firstIndex { value <= $0 } ?? buckets.count
        let bucketCount = buckets.count + 1
        series.withLock { all in
            // Updated in place: a copy taken out of the dictionary would
            // share its bucket array and copy it on the first write.
            all[labels, default: Series(bucketCounts: Array(repeating: 0, count: bucketCount))].record(value, inBucket: index)
        }
    }

    package func count(labels: MetricLabels = [:]) -> UInt64 {
        series.withLock { $0[labels]?.count ?? 0 }
    }
}

extension Histogram: PrometheusRenderable {
    func render(into output: inout String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for (labels, entry) in series.withLock({ $0 }).sorted(by: { $0.key.rendered < $1.key.rendered }) {
            var cumulative: UInt64 = 0
            for (index, bound) in buckets.enumerated() {
                cumulative += entry.bucketCounts[index]
                output += "\(name)_bucket\(labels.rendered(adding: "le", PrometheusNumber.format(bound))) \(cumulative)\n"
            }
            cumulative += entry.bucketCounts[buckets.count]
            output += "\(name)_bucket\(labels.rendered(adding: "le", "+Inf")) \(cumulative)\n"
            output += "\(name)_sum\(labels.rendered) \(PrometheusNumber.format(entry.sum))\n"
            output += "\(name)_count\(labels.rendered) \(entry.count)\n"
        }
    }
}
