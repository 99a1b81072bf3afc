import Testing
import TidingsTestSupport

@testable import TidingsHTTPServer

/// Requests whose body two HTTP parsers could delimit differently are
/// refused with 400 before their body is read, and the connection closes,
/// so what follows cannot be taken as a second request (smuggling). A
/// hostile-input hunt found each of these answered, with the rest of the
/// body run as a request of its own.
@Suite struct RequestFramingTests {
    private static func makeRouter() -> Router {
        var router = Router()
        router.get("/ping") { _, _ in .text("pong") }
        router.post("/upload") { request, _ in .text("got \(request.body.count)") }
        return router
    }

    static let smuggled = "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n"

    @Test(arguments: [
        ("Content-Length: 2\r\nContent-Length: \(smuggled.utf8.count + 2)\r\n", "more than one Content-Length"),
        ("Content-Length: \(smuggled.utf8.count + 2)\r\nContent-Length: \(smuggled.utf8.count + 2)\r\n", "more than one Content-Length"),
        ("Transfer-Encoding: chunked\r\nContent-Length: 2\r\n", "both Transfer-Encoding and Content-Length"),
        ("Transfer-Encoding : chunked\r\n", "field name"),
        ("Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n", "only transfer coding"),
        ("Transfer-Encoding: gzip, chunked\r\n", "only transfer coding"),
        ("Transfer-Encoding: chunked, chunked\r\n", "only transfer coding"),
    ])
    func ambiguousBodiesAreRefusedAndTheConnectionClosed(fields: String, detail: String) throws {
        let server = try TestServer(router: Self.makeRouter())
        let connection = try server.connect()
        try connection.send("POST /upload HTTP/1.1\r\nHost: x\r\n\(fields)\r\nab" + Self.smuggled)
        let response = try connection.readResponse()
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(response.problem?.detail?.contains(detail) == true, "\(response.problem?.detail ?? "no detail")")
        #expect(connection.waitForClose(), "no second request read from the same connection")
    }

    /// libmicrohttpd refuses a signed length itself, before Tidings sees
    /// the request (a 400 of its own); the rule holds either way.
    @Test func aSignedContentLengthIsRefused() throws {
        let server = try TestServer(router: Self.makeRouter())
        let connection = try server.connect()
        try connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\nab" + Self.smuggled)
        #expect(try connection.readResponse().status == 400)
        #expect(connection.waitForClose())
    }

    @Test func aPlainChunkedUploadStillWorks() throws {
        let server = try TestServer(router: Self.makeRouter())
        let connection = try server.connect()
        try connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 200 && response.text == "got 5")
    }

    @Test func aContentLengthPastUInt64IsTooLarge() throws {
        let server = try TestServer(router: Self.makeRouter())
        let connection = try server.connect()
        try connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 413 || response.status == 400, "\(response.status)")
    }

    @Test(arguments: [
        (["5"], ["chunked"], false, false),
        (["5"], [], false, true),
        ([], ["chunked"], false, true),
        ([], [" Chunked "], false, true),
        ([], [], false, true),
        (["5", "5"], [], false, false),
        (["5"], ["chunked"], false, false),
        ([], ["chunked,"], false, false),
        ([""], [], false, false),
        ([], [], true, false),
        ([], ["chun\u{212A}ed"], false, false),
        ([], ["CHUNKED"], false, true),
    ])
    func framingRules(contentLengths: [String], transferEncodings: [String], malformed: Bool, accepted: Bool) {
        let framing = RequestFraming(contentLengths: contentLengths, transferEncodings: transferEncodings, hasMalformedFieldName: malformed)
        #expect((framing.problem == nil) == accepted)
    }
}
