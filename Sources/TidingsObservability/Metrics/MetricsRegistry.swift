package import TidingsSynchronization

protocol PrometheusRenderable: Sendable {
    func render(into output: inout String)
}

/// Owns every metric of a process and renders them in the Prometheus text
/// exposition format (version 0.0.4). Asking twice for the same name returns
/// the same metric, so independent components can share a series.
package final class MetricsRegistry: Sendable {
    private struct State {
        var order: [String] = []
        var metrics: [String: any PrometheusRenderable] = [:]
    }

    private let state = AdaptiveMutex(State())

    package init() {}

    package func counter(_ name: String, help: String) -> Counter {
        register(name) { Counter(name: name, help: help) }
    }

    package func gauge(_ name: String, help: String) -> Gauge {
        register(name) { Gauge(name: name, help: help) }
    }

    package func histogram(_ name: String, help: String, buckets: [Double] = Histogram.defaultLatencyBuckets) -> Histogram {
        register(name) { Histogram(name: name, help: help, buckets: buckets) }
    }

    package func renderPrometheus() -> String {
        let metrics = state.withLock { state in state.order.map { state.metrics[$0]! } }
        var output = ""
        for metric in metrics {
            metric.render(into: &output)
        }
        return output
    }

    private func register<Metric: PrometheusRenderable>(_ name: String, make: () -> Metric) -> Metric {
        state.withLock { state in
            if let existing = state.metrics[name] {
                guard let typed = existing as? Metric else {
                    preconditionFailure("metric \(name) registered twice with different types")
                }
                return typed
            }
            let metric = make()
            state.metrics[name] = metric
            state.order.append(name)
            return metric
        }
    }
}

enum PrometheusNumber {
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return String(value)
    }
}
