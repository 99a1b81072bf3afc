import Testing
import TidingsHTTPServer
import TidingsTestSupport

@Suite struct RequestIDTests {
    private static func makeRouter() -> Router {
        var router = Router()
        router.get("/id") { _, context in .text(context.requestID) }
        return router
    }

    @Test func clientRequestIDIsEchoed() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request("GET", "/id", headers: [("X-Request-Id", "abc.DEF_1:2-3")])
        #expect(response.headers["X-Request-Id"] == "abc.DEF_1:2-3")
        #expect(response.text == "abc.DEF_1:2-3")
    }

    @Test(arguments: [nil, "has space", "semi;colon", String(repeating: "a", count: 129)])
    func missingOrUnsafeRequestIDIsReplaced(sent: String?) throws {
        let server = try TestServer(router: Self.makeRouter())
        let headers = sent.map { [("X-Request-Id", $0)] } ?? []
        let response = try server.request("GET", "/id", headers: headers)
        let id = try #require(response.headers["X-Request-Id"])
        #expect(id != sent)
        #expect(id.count == 32)
        #expect(id.allSatisfy { $0.isHexDigit })
        #expect(response.text == id)
    }

    @Test func generatedIDsDiffer() throws {
        let server = try TestServer(router: Self.makeRouter())
        let first = try server.request("GET", "/id").text
        let second = try server.request("GET", "/id").text
        #expect(first != second)
    }
}
