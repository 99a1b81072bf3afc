package import TidingsSynchronization

/// A monotonically increasing count, one value per label set.
package final class Counter: Sendable {
    package let name: String
    package let help: String
    private let values = AdaptiveMutex<[MetricLabels: Double]>([:])

    init(name: String, help: String) {
        self.name = name
        self.help = help
    }

    package func increment(by amount: Double = 1, labels: MetricLabels = [:]) {
        values.withLock { $0[labels, default: 0] += amount }
    }

    package func value(labels: MetricLabels = [:]) -> Double {
        values.withLock { $0[labels] ?? 0 }
    }
}

extension Counter: PrometheusRenderable {
    func render(into output: inout String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
        for (labels, value) in values.withLock({ $0 }).sorted(by: { $0.key.rendered < $1.key.rendered }) {
            output += "\(name)\(labels.rendered) \(PrometheusNumber.format(value))\n"
        }
    }
}
