import Testing
import TidingsHTTPServer
import TidingsTestSupport

@Suite struct RoutingTests {
    private static func makeRouter() -> Router {
        var router = Router()
        router.get("/v1/watches/{id}") { _, context in
            .text("watch \(try context.parameter("id"))")
        }
        router.get("/v1/watches/special") { _, _ in .text("literal") }
        router.post("/v1/watches/{id}/check") { _, context in
            .text("check \(try context.parameter("id")) via \(context.routeTemplate)")
        }
        router.delete("/v1/watches/{id}") { _, _ in .noContent() }
        router.get("/v1/typo/{id}") { _, context in
            .text(try context.parameter("identifier"))
        }
        router.get("/v1/search") { request, _ in
            .text("q=\(request.query["q"] ?? "-") items=\(request.queryItems.count)")
        }
        return router
    }

    @Test func pathParametersAreDecodedAndPassedToTheHandler() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request("GET", "/v1/watches/abc%20d")
        #expect(response.status == 200)
        #expect(response.text == "watch abc d")
        let check = try server.request("POST", "/v1/watches/42/check")
        #expect(check.text == "check 42 via /v1/watches/{id}/check")
    }

    /// An encoded NUL is not decoded: decoded, it would end the path early
    /// and route "/v1/watches%00/x" as "/v1/watches".
    @Test func anEncodedNulNeverCutsThePath() throws {
        let server = try TestServer(router: Self.makeRouter())
        let cut = try server.request("GET", "/v1/search%00/anything")
        #expect(cut.status == 404)
        let parameter = try server.request("GET", "/v1/watches/a%00b")
        #expect(parameter.status == 200)
        #expect(parameter.text == "watch a%00b")
        #expect(try server.request("GET", "/v1/search?q=a%00b").text == "q=a%00b items=1")
        #expect(try server.request("GET", "/v1/search?q=a%41b").text == "q=aAb items=1")
    }

    @Test func literalSegmentsWinOverParameters() throws {
        let server = try TestServer(router: Self.makeRouter())
        #expect(try server.request("GET", "/v1/watches/special").text == "literal")
        #expect(try server.request("GET", "/v1/watches/specials").text == "watch specials")
    }

    @Test func queryParametersKeepTheLastValue() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request("GET", "/v1/search?q=first&q=caf%C3%A9&flag")
        #expect(response.text == "q=café items=3")
    }

    @Test func askingForAnUndeclaredParameterIsA500() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request("GET", "/v1/typo/5")
        #expect(response.status == 500)
        #expect(response.problem?.status == 500)
    }

    @Test func unknownPathIsA404Problem() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request("GET", "/v1/nothing/here")
        #expect(response.status == 404)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        let problem = try #require(response.problem)
        #expect(problem.status == 404)
        #expect(problem.title == "Not Found")
        #expect(problem.type == "about:blank")
        #expect(problem.requestID == response.headers["X-Request-Id"])
    }

    @Test func wrongMethodIsA405ListingAllowedMethods() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request("PUT", "/v1/watches/7")
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "DELETE, GET, HEAD")
        #expect(response.problem?.status == 405)

        let odd = try server.request("BREW", "/v1/watches/7")
        #expect(odd.status == 405)
    }

    @Test func headIsAnsweredByTheGetRouteWithoutABody() throws {
        let server = try TestServer(router: Self.makeRouter())
        let connection = try server.connect()
        let head = try connection.request("HEAD", "/v1/watches/abc")
        #expect(head.status == 200)
        #expect(head.headers["Content-Length"] == "9")
        #expect(head.body.isEmpty)
        // The connection must still be in sync: no stray body bytes.
        let get = try connection.request("GET", "/v1/watches/abc")
        #expect(get.text == "watch abc")
    }
}
