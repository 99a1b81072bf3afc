import TidingsDomain
import TidingsObservability

/// The poller's Prometheus series; labels are fixed result names only.
struct PollerMetrics: Sendable {
    let checks: Counter
    let requests: Counter
    let notModified: Counter
    let bytesReceived: Counter
    let bytesSaved: Counter
    let changes: Counter
    let checkDuration: Histogram
    let writeFailures: Counter
    let extractionsAbandoned: Counter
    let unchangedBodies: Counter
    let heldChecks: Counter
    let writesRefused: Counter
    /// Read from the extraction pool, which `Poller` registers.
    let abandonedExtractionThreads: Gauge
    /// Read from the host limiter, which `Poller` registers.
    let hostConcurrency: Gauge

    init(registry: MetricsRegistry) {
        checks = registry.counter("tidings_poller_checks_total", help: "Target checks by result.")
        requests = registry.counter("tidings_poller_requests_total", help: "Requests sent by the poller, version endpoints included.")
        notModified = registry.counter("tidings_poller_not_modified_total", help: "304 Not Modified answers to conditional requests.")
        bytesReceived = registry.counter(
            "tidings_poller_received_bytes_total", help: "Response bytes received by the poller (on the wire).")
        bytesSaved = registry.counter(
            "tidings_poller_saved_bytes_total",
            help: "Bytes not downloaded thanks to 304s and unchanged versions (estimated from the last full response).")
        changes = registry.counter("tidings_poller_changes_total", help: "Changes recorded (baselines excluded).")
        checkDuration = registry.histogram(
            "tidings_poller_check_duration_seconds", help: "Time from claiming a target to its check result.")
        writeFailures = registry.counter(
            "tidings_poller_write_failures_total",
            help: "Check results that could not be written (the lease expires and the target is checked again).")
        extractionsAbandoned = registry.counter(
            "tidings_poller_extractions_abandoned_total",
            help: "Extractions a check stopped waiting for past their time limit (they run on at low priority).")
        unchangedBodies = registry.counter(
            "tidings_poller_unchanged_bodies_total",
            help: "Full responses whose body hashed as the last one's: no parsing, extraction or diff.")
        heldChecks = registry.counter(
            "tidings_poller_held_checks_total",
            help: "Checks of targets held between checks, by source: the copy kept from the last quiet write, or a read of the row.")
        writesRefused = registry.counter(
            "tidings_poller_writes_refused_total",
            help: "Quiet check results not written: the target's lease or hold ended meanwhile (changed through the API, taken over).")
        abandonedExtractionThreads = registry.gauge(
            "tidings_poller_abandoned_extraction_threads", help: "Abandoned extractions still running, each on a thread of its own.")
        hostConcurrency = registry.gauge(
            "tidings_poller_host_concurrency",
            help: "Poller requests in flight this process allows per host: TIDINGS_HOST_CONCURRENCY shared among the live pollers.")
    }

    /// Counts a batch of outcomes: one update per series, not per check.
    func record(_ outcomes: [CheckOutcome]) {
        var bySummary: [CheckOutcome.Summary: Int] = [:]
        var (requestCount, notModifiedCount, received, saved) = (0, 0, 0, 0)
        for outcome in outcomes {
            bySummary[outcome.summary, default: 0] += 1
            requestCount += outcome.record.requests
            notModifiedCount += outcome.record.notModified
            received += outcome.record.bytesReceived
            saved += outcome.record.bytesSaved
        }
        for (summary, count) in bySummary {
            checks.increment(by: Double(count), labels: ["result": summary.rawValue])
        }
        requests.increment(by: Double(requestCount))
        notModified.increment(by: Double(notModifiedCount))
        bytesReceived.increment(by: Double(received))
        bytesSaved.increment(by: Double(saved))
    }
}
