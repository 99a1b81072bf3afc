import Testing
import TidingsHTTPServer
import TidingsTestSupport

@Suite struct ProblemTests {
    private struct DatabaseExploded: Error, CustomStringConvertible {
        var description: String { "password=hunter2 at db.internal:5432" }
    }

    private static func makeRouter() -> Router {
        var router = Router()
        router.get("/status/{code}") { _, context in
            let code = Int(try context.parameter("code")) ?? 500
            throw HTTPError(HTTPStatus(code: code), detail: "detail for \(code)")
        }
        router.get("/rate-limited") { _, _ in
            throw HTTPError(
                .tooManyRequests,
                detail: "Slow down.",
                type: "https://tidings.example/problems/rate-limit",
                headers: ["Retry-After": "30"],
                extensions: ["limit": "100", "status": "ignored"]
            )
        }
        router.get("/over-limit") { _, _ in
            throw HTTPError(
                .forbidden,
                detail: "At the limit.",
                extensions: ["limit": "watches", "maximum": "kept"],
                integerExtensions: ["maximum": 5, "used": -7, "status": 1]
            )
        }
        router.get("/crash") { _, _ in throw DatabaseExploded() }
        return router
    }

    @Test(arguments: [400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503])
    func handlerErrorsRenderAsProblems(code: Int) throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request("GET", "/status/\(code)")
        #expect(response.status == code)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        let problem = try #require(response.problem)
        #expect(problem.status == code)
        #expect(problem.title == HTTPStatus(code: code).reasonPhrase)
        #expect(problem.detail == "detail for \(code)")
        #expect(problem.requestID != nil)
    }

    @Test func errorHeadersTypeAndExtensionsReachTheClient() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request("GET", "/rate-limited")
        #expect(response.status == 429)
        #expect(response.headers["Retry-After"] == "30")
        #expect(response.problem?.type == "https://tidings.example/problems/rate-limit")
        #expect(response.text.contains("\"limit\":\"100\""))
        // An extension cannot overwrite a standard member.
        #expect(response.problem?.status == 429)
    }

    @Test func integerExtensionsAreJSONNumbersAndNeverDuplicateAMember() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request("GET", "/over-limit")
        #expect(response.status == 403)
        #expect(response.text.contains("\"limit\":\"watches\""))
        #expect(response.text.contains("\"used\":-7"))
        // The string member of the same name wins; a standard member is never replaced.
        #expect(response.text.contains("\"maximum\":\"kept\""))
        #expect(response.text.ranges(of: "\"maximum\"").count == 1)
        #expect(response.problem?.status == 403)
    }

    @Test func otherErrorsBecomeAGeneric500AndAreLogged() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request("GET", "/crash", headers: [("X-Request-Id", "crash-1")])
        #expect(response.status == 500)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(response.problem?.detail == "An internal error occurred.")
        #expect(!response.text.contains("hunter2"))
        #expect(!response.text.contains("DatabaseExploded"))
        let logged = try #require(server.logLine(containing: "handler failed"))
        #expect(logged.contains("\"level\":\"error\""))
        #expect(logged.contains("hunter2"))
        #expect(logged.contains("\"request.id\":\"crash-1\""))
    }

    @Test func problemBodyHasSortedMembers() {
        let response = HTTPError(.conflict, detail: "Already \"there\".", extensions: ["field": "name"]).response
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == #"{"detail":"Already \"there\".","field":"name","status":409,"title":"Conflict","type":"about:blank"}"#
        )
    }
}
