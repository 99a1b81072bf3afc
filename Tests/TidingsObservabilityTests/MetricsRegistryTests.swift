import Testing
import TidingsObservability

@Suite struct MetricsRegistryTests {
    @Test func rendersCountersGaugesAndHistogramsInPrometheusFormat() {
        let registry = MetricsRegistry()
        let requests = registry.counter("http_requests_total", help: "Requests.")
        requests.increment(labels: ["route": "/healthz", "status": "200"])
        requests.increment(labels: ["status": "200", "route": "/healthz"])
        requests.increment(labels: ["route": "/v1/watches/{id}", "status": "404"])
        registry.gauge("pool_in_use", help: "In use.").observe { 3 }
        let latency = registry.histogram("latency_seconds", help: "Latency.", buckets: [0.1, 1])
        latency.observe(0.05)
        latency.observe(0.5)
        latency.observe(5)

        let text = registry.renderPrometheus()
        #expect(text.contains("# TYPE http_requests_total counter"))
        #expect(text.contains("http_requests_total{route=\"/healthz\",status=\"200\"} 2\n"))
        #expect(text.contains("http_requests_total{route=\"/v1/watches/{id}\",status=\"404\"} 1\n"))
        #expect(text.contains("pool_in_use 3\n"))
        #expect(text.contains("latency_seconds_bucket{le=\"0.1\"} 1\n"))
        #expect(text.contains("latency_seconds_bucket{le=\"1\"} 2\n"))
        #expect(text.contains("latency_seconds_bucket{le=\"+Inf\"} 3\n"))
        #expect(text.contains("latency_seconds_count 3\n"))
        #expect(text.contains("latency_seconds_sum 5.55\n"))
    }

    @Test func sameNameReturnsSameMetric() {
        let registry = MetricsRegistry()
        registry.counter("c", help: "x").increment()
        registry.counter("c", help: "x").increment()
        #expect(registry.counter("c", help: "x").value() == 2)
    }
}
