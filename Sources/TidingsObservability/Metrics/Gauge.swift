package import TidingsSynchronization

/// A value read at scrape time from its owner (for example a connection
/// pool's in-use count), so the owner never has to push updates.
package final class Gauge: Sendable {
    package let name: String
    package let help: String
    private let providers = AdaptiveMutex<[MetricLabels: @Sendable () -> Double]>([:])

    init(name: String, help: String) {
        self.name = name
        self.help = help
    }

    /// Registers (or replaces) the function that reports the series' value.
    package func observe(labels: MetricLabels = [:], _ provider: @escaping @Sendable () -> Double) {
        providers.withLock { $0[labels] = provider }
    }

    package func removeObservation(labels: MetricLabels = [:]) {
        _ = providers.withLock { $0.removeValue(forKey: labels) }
    }

    package func value(labels: MetricLabels = [:]) -> Double? {
        providers.withLock { $0[labels] }?()
    }
}

extension Gauge: PrometheusRenderable {
    func render(into output: inout String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
        for (labels, provider) in providers.withLock({ $0 }).sorted(by: { $0.key.rendered < $1.key.rendered }) {
            output += "\(name)\(labels.rendered) \(PrometheusNumber.format(provider()))\n"
        }
    }
}
