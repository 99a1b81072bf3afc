import Foundation
import Testing
import TidingsTestSupport

@testable import TidingsApp

/// POST /v1/watches/preview: a rule tried on a live page (a real loopback
/// origin), nothing stored; the address policy, the extraction limits, the
/// per-user rate, and clear 4xx problems for what cannot be previewed.
@Suite struct WatchPreviewAPITests {
    static let page = """
        <html><head><title>Prices</title><script>var tracking = 1;</script></head>
        <body><main><p class="price">Pro: $10</p><p class="price">Team: $30</p></main><footer>Updated 3 minutes ago</footer></body></html>
        """

    static func htmlOrigin(status: Int = 200, body: String = page) throws -> TestOriginServer {
        try TestOriginServer { _ in
            TestResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(body.utf8))
        }
    }

    @Test func theRuleRunsOnTheLivePageAndNothingIsStored() async throws {
        let origin = try Self.htmlOrigin()
        defer { origin.stop() }
        let server = try APITestServer { $0.allowPrivateTargets = true }
        defer { server.stop() }
        let user = try await server.createUser()
        let url = origin.baseURL + "/pricing"

        let css = try await server.send(
            "POST", "/v1/watches/preview", token: user.key, json: ["url": url, "extract": ["css": "main .price"]])
        #expect(css.status == 200, "\(css.text)")
        let answer = try css.object()
        #expect(answer["lines"] as? [String] == ["Pro: $10", "Team: $30"])
        #expect(answer["http_status"] as? Int == 200)
        #expect(answer["content_type"] as? String == "text/html; charset=utf-8")
        #expect(answer["truncated"] as? Bool == false)
        #expect(answer["url"] as? String == url)

        let xpath = try await server.send(
            "POST", "/v1/watches/preview", token: user.key,
            json: [
                "url": url, "extract": ["xpath": "//p[2]", "ignore": ["\\$\\d+"]],
            ])
        #expect(try xpath.object()["lines"] as? [String] == ["Team:"])

        let readable = try await server.send("POST", "/v1/watches/preview", token: user.key, json: ["url": url])
        let lines = try #require(try readable.object()["lines"] as? [String])
        #expect(lines.contains("Pro: $10") && lines.contains("Updated 3 minutes ago"))
        #expect(!lines.contains { $0.contains("tracking") })

        let nothing = try await server.send(
            "POST", "/v1/watches/preview", token: user.key, json: ["url": url, "extract": ["css": "aside"]])
        #expect(try nothing.object()["lines"] as? [String] == [])

        #expect(try await server.send("GET", "/v1/watches", token: user.key).items().isEmpty)
        #expect(origin.receivedRequests == 4)
    }

    @Test func aBlockedTargetIs422NamingTheURLAndIsNeverRequested() async throws {
        let origin = try Self.htmlOrigin()
        defer { origin.stop() }
        let server = try APITestServer()
        defer { server.stop() }
        let user = try await server.createUser()
        for url in [
            origin.baseURL + "/", "http://[::1]:\(origin.port)/", "http://localhost:\(origin.port)/", "http://169.254.169.254/latest/",
        ] {
            let response = try await server.send("POST", "/v1/watches/preview", token: user.key, json: ["url": url])
            #expect(response.status == 422, "\(url): \(response.text)")
            #expect(response.isProblem)
            #expect(try response.object()["field"] as? String == "url")
        }
        #expect(origin.receivedRequests == 0)
    }

    @Test(arguments: [
        ("{}", "url"),
        (#"{"url": 5}"#, "url"),
        (#"{"url": "ftp://example.com/"}"#, "url"),
        (#"{"url": ""}"#, "url"),
        (#"{"url": "https://example.com/", "extract": {"css": "[["}}"#, "extract"),
        (#"{"url": "https://example.com/", "extract": {"raw": false}}"#, "extract.raw"),
        (#"{"url": "https://example.com/", "extract": {"css": "p", "xpath": "//p"}}"#, "extract"),
        (#"{"url": "https://example.com/", "extract": {"json_pointer": "no-slash"}}"#, "extract.json_pointer"),
        (#"{"url": "https://example.com/", "name": "extra"}"#, "name"),
    ])
    func malformedBodiesAreRefusedByNameBeforeAnyFetch(body: String, field: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let user = try await server.createUser()
        let response = try await server.send("POST", "/v1/watches/preview", token: user.key, rawBody: Array(body.utf8))
        #expect([400, 422].contains(response.status), "\(body): \(response.text)")
        #expect(response.isProblem)
        #expect(
            (try response.object()["field"] as? String)?.hasPrefix(field.split(separator: ".").first.map(String.init) ?? field) == true,
            "\(body): \(response.text)")
    }

    @Test func notJSONAndHugeBodiesAreRefused() async throws {
        let server = try APITestServer { $0.maxBodySize = 4096 }
        defer { server.stop() }
        let user = try await server.createUser()
        let garbage = try await server.send("POST", "/v1/watches/preview", token: user.key, rawBody: [0xFF, 0x00, 0x7B])
        #expect(garbage.status == 400 && garbage.isProblem)
        let huge = try await server.send(
            "POST", "/v1/watches/preview", token: user.key, json: ["url": "https://example.com/" + String(repeating: "a", count: 8000)])
        #expect(huge.status == 413 && huge.isProblem)
    }

    @Test func pagesThatFailAre422NamingTheURLAndSayingWhy() async throws {
        let missing = try Self.htmlOrigin(status: 404, body: "gone")
        defer { missing.stop() }
        let server = try APITestServer { $0.allowPrivateTargets = true }
        defer { server.stop() }
        let user = try await server.createUser()
        let notFound = try await server.send("POST", "/v1/watches/preview", token: user.key, json: ["url": missing.baseURL + "/"])
        #expect(notFound.status == 422 && notFound.isProblem)
        #expect(try notFound.object()["field"] as? String == "url")
        #expect(try notFound.object()["detail"] as? String == "url: the page answered HTTP 404; a check would fail the same way")

        // Nothing listens on port 1: the connection is refused.
        let refused = try await server.send("POST", "/v1/watches/preview", token: user.key, json: ["url": "http://127.0.0.1:1/"])
        #expect(refused.status == 422 && refused.isProblem, "\(refused.text)")
        #expect((try refused.object()["detail"] as? String)?.hasPrefix("url: the page could not be fetched: ") == true)
    }

    @Test func theExtractionLimitsOfACheckApply() async throws {
        let big = "<html><body>" + String(repeating: "<div><p>x</p></div>", count: 200) + "</body></html>"
        let origin = try Self.htmlOrigin(body: big)
        defer { origin.stop() }
        let server = try APITestServer {
            $0.allowPrivateTargets = true
            $0.extractionMaxNodes = 50
        }
        defer { server.stop() }
        let user = try await server.createUser()
        let response = try await server.send(
            "POST", "/v1/watches/preview", token: user.key, json: ["url": origin.baseURL + "/", "extract": ["css": "p"]])
        #expect(response.status == 422, "\(response.text)")
        #expect(try response.object()["field"] as? String == "extract")
    }

    @Test func previewsAreRateLimitedPerUserBeforeAnyFetch() async throws {
        let origin = try Self.htmlOrigin()
        defer { origin.stop() }
        let server = try APITestServer {
            $0.allowPrivateTargets = true
            $0.checkNowUserRate = RatePolicy(count: 2, per: .seconds(60))
        }
        defer { server.stop() }
        let first = try await server.createUser()
        let second = try await server.createUser()
        let body: [String: Any] = ["url": origin.baseURL + "/"]
        for _ in 0..<2 {
            #expect(try await server.send("POST", "/v1/watches/preview", token: first.key, json: body).status == 200)
        }
        let limited = try await server.send("POST", "/v1/watches/preview", token: first.key, json: body)
        #expect(limited.status == 429)
        #expect(try limited.object()["limit"] as? String == "previews_per_user")
        #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(origin.receivedRequests == 2)
        #expect(try await server.send("POST", "/v1/watches/preview", token: second.key, json: body).status == 200)
        // Previews are counted apart from checks.
        let watch = try await server.createWatch(token: first.key, ["url": origin.baseURL + "/other"])
        let check = try await server.send("POST", "/v1/watches/\(try #require(watch["id"] as? String))/check", token: first.key)
        #expect(check.status != 429, "\(check.text)")
    }

    @Test func onlyUsersPreview() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let body: [String: Any] = ["url": "https://example.com/"]
        #expect(try await server.send("POST", "/v1/watches/preview", json: body).status == 401)
        #expect(try await server.send("POST", "/v1/watches/preview", token: APITestServer.adminToken, json: body).status == 403)
        #expect(try await server.send("GET", "/v1/watches/preview", token: APITestServer.adminToken).status == 405)
    }
}
