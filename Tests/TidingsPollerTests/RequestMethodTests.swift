import Testing
import TidingsDomain
import TidingsSynchronization
import TidingsTestSupport

/// A check is one GET whatever validators the page has: no HEAD first,
/// which would cost a second request where a conditional GET costs one.
@Suite(.serialized) struct RequestMethodTests {
    @Test func everyCheckIsOneGetWithOrWithoutValidators() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let modified = "Tue, 15 Nov 1994 12:45:26 GMT"
        let origin = try script.origin { request in
            let page = Array("<p>\(request.path)</p>".utf8)
            switch request.path {
            case "/etag":
                if request.header("If-None-Match") == "\"v1\"" { return TestResponse(status: 304, headers: [("ETag", "\"v1\"")]) }
                return TestResponse(headers: [("Content-Type", "text/html"), ("ETag", "\"v1\"")], body: page)
            case "/modified":
                if request.header("If-Modified-Since") == modified { return TestResponse(status: 304) }
                return TestResponse(headers: [("Content-Type", "text/html"), ("Last-Modified", modified)], body: page)
            default:
                return TestResponse(headers: [("Content-Type", "text/html")], body: page)
            }
        }
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let user = try context.user()

        for path in ["/etag", "/modified", "/plain"] {
            let watch = try context.watch(user: user, url: "\(origin.baseURL)\(path)", extract: ExtractionRule(selector: .css("p")))
            #expect(try await context.check(watch, with: poller).result == .baseline)
            let second = try await context.check(watch, with: poller).result
            #expect(second == (path == "/plain" ? .unchanged : .notModified))
            #expect(script.requestCount(path: path) == 2)
        }
        #expect(script.methods == Array(repeating: "GET", count: 6))
    }
}
