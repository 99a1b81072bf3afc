import Testing
import TidingsHTTPServer
import TidingsObservability
import TidingsTestSupport

@Suite struct ObservabilityTests {
    private static func makeRouter() -> Router {
        var router = Router()
        router.get("/v1/watches/{id}") { _, context in
            context.logger.info("handler ran")
            return .text("ok")
        }
        return router
    }

    @Test func accessLogLineCarriesRequestStatusAndRoute() throws {
        let server = try TestServer(router: Self.makeRouter())
        _ = try server.request("GET", "/v1/watches/9", headers: [("X-Request-Id", "log-me-1")])
        let line = try #require(server.logLine(containing: "request completed"))
        #expect(line.contains("\"request.id\":\"log-me-1\""))
        #expect(line.contains("\"http.status\":\"200\""))
        #expect(line.contains("\"http.route\":\"/v1/watches/{id}\""))
        #expect(line.contains("\"http.path\":\"/v1/watches/9\""))
        #expect(line.contains("\"http.method\":\"GET\""))
        #expect(line.contains("\"http.bytes_out\":\"2\""))
        #expect(line.contains("\"client.address\":\"127.0.0.1\""))
        #expect(line.contains("\"http.duration_ms\":"))
        let handlerLine = try #require(server.logLine(containing: "handler ran"))
        #expect(handlerLine.contains("\"request.id\":\"log-me-1\""))
    }

    @Test func requestsAreCountedByRouteTemplate() throws {
        let server = try TestServer(router: Self.makeRouter())
        _ = try server.request("GET", "/v1/watches/1")
        _ = try server.request("GET", "/v1/watches/2")
        _ = try server.request("GET", "/nowhere/3")
        let requests = server.metrics.counter("tidings_http_requests_total", help: "")
        let matched: MetricLabels = ["method": "GET", "route": "/v1/watches/{id}", "status": "200"]
        let unmatched: MetricLabels = ["method": "GET", "route": "unmatched", "status": "404"]
        #expect(
            eventuallyBlocking(timeout: .seconds(10)) { requests.value(labels: matched) == 2 && requests.value(labels: unmatched) == 1 })
        let rendered = server.metrics.renderPrometheus()
        #expect(!rendered.contains("/v1/watches/1"))
        #expect(rendered.contains("tidings_http_request_duration_seconds_count{method=\"GET\",route=\"/v1/watches/{id}\"} 2"))
    }

    @Test func openConnectionsGaugeFollowsClients() throws {
        let server = try TestServer(router: Self.makeRouter())
        let gauge = server.metrics.gauge("tidings_http_connections_open", help: "")
        var connection: RawHTTPConnection? = try server.connect()
        _ = try connection?.request("GET", "/v1/watches/1")
        #expect(gauge.value() == 1)
        connection = nil
        #expect(eventuallyBlocking(timeout: .seconds(10)) { gauge.value() == 0 })
    }
}
