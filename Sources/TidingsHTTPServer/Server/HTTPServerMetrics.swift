import TidingsObservability

/// The server's metric series. Labels are bounded: known methods only, route
/// templates (never raw paths), status codes.
struct HTTPServerMetrics: Sendable {
    static let unmatchedRoute = "unmatched"
    private static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    let requests: Counter
    let duration: Histogram
    let connectionsOpen: Gauge
    let connectionsRefused: Counter
    let connectionsShed: Counter
    let requestTimeouts: Counter
    let responseTimeouts: Counter
    let streamsOpen: Gauge
    let streamsClosed: Counter

    init(registry: MetricsRegistry) {
        requests = registry.counter(
            "tidings_http_requests_total",
            help: "HTTP requests answered, by method, route template and status."
        )
        duration = registry.histogram(
            "tidings_http_request_duration_seconds",
            help: "Time from request line to completed response, by method and route template."
        )
        connectionsOpen = registry.gauge(
            "tidings_http_connections_open",
            help: "Client connections currently open."
        )
        connectionsRefused = registry.counter(
            "tidings_http_connections_refused_total",
            help:
                "Connections closed unanswered because their client address already held the most connections allowed per client, or because the server was at its connection limit and no client held at least two more."
        )
        connectionsShed = registry.counter(
            "tidings_http_connections_shed_total",
            help: "Idle or slow connections closed at the connection limit to make room for a client holding fewer."
        )
        requestTimeouts = registry.counter(
            "tidings_http_request_timeouts_total",
            help: "Connections closed because a request was not received completely within the request timeout."
        )
        responseTimeouts = registry.counter(
            "tidings_http_response_timeouts_total",
            help: "Connections closed because the client did not take a response within the response timeout (streams: a piece sent on it)."
        )
        streamsOpen = registry.gauge(
            "tidings_http_streams_open",
            help: "Streamed responses (Server-Sent Events) currently open."
        )
        streamsClosed = registry.counter(
            "tidings_http_streams_closed_total",
            help:
                "Streamed responses ended, by reason (finished, client_gone, buffer_overflow, response_timeout, server_shutdown, not_served)."
        )
    }

    func record(method: HTTPMethod, route: String, status: HTTPStatus, seconds: Double) {
        let methodLabel = Self.knownMethods.contains(method.rawValue) ? method.rawValue : "other"
        requests.increment(labels: ["method": methodLabel, "route": route, "status": String(status.code)])
        duration.observe(seconds, labels: ["method": methodLabel, "route": route])
    }
}
