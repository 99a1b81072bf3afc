import TidingsSynchronization

/// A monotonically increasing count, one value per label set.
public final class Counter: Sendable {
    public let name: String
    public let help: String
    private let values = AdaptiveMutex<[MetricLabels: Double]>([:])

    init(name: String, help: String) {
        self.name = name
        self.help = help
    }

    public func increment(by amount: Double = 1, labels: MetricLabels = [:]) {
        values.withLock { $0[labels, default: 0] += amount }
    }

    public func value(labels: MetricLabels = [:]) -> Double {
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
