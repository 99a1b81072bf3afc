import FoundationEssentials
import Testing
import TidingsHTTPServer
import TidingsTestSupport

@Suite struct JSONTests {
    private struct CreateWatch: Codable {
        let name: String
        let intervalSeconds: Int
        let tags: [Tag]?

        enum CodingKeys: String, CodingKey {
            case name
            case intervalSeconds = "interval_seconds"
            case tags
        }
    }

    private struct Tag: Codable {
        let label: String
    }

    private struct Stamp: Codable {
        let at: Date
        let url: String
    }

    private static func makeRouter() -> Router {
        var router = Router()
        router.post("/v1/watches") { request, _ in
            let input = try request.decodeJSON(CreateWatch.self)
            return .json(input, status: .created)
        }
        return router
    }

    private static let json = [("Content-Type", "application/json; charset=utf-8")]

    @Test func validBodyRoundTrips() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request(
            "POST", "/v1/watches", headers: Self.json,
            body: Array(#"{"interval_seconds": 60, "name": "docs"}"#.utf8)
        )
        #expect(response.status == 201)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.text == #"{"interval_seconds":60,"name":"docs"}"#)
    }

    @Test func malformedJSONIs400() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request("POST", "/v1/watches", headers: Self.json, body: Array("{\"name\": ".utf8))
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(response.problem?.detail == "The request body is not valid JSON.")
    }

    @Test func fractionForAnIntegerIs422NotMalformed() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request(
            "POST", "/v1/watches", headers: Self.json,
            body: Array(#"{"name":"x","interval_seconds":1.5}"#.utf8)
        )
        #expect(response.status == 422)
    }

    /// JSONDecoder keeps one of two values silently; the body is refused,
    /// naming the member, however its name is spelled.
    @Test(arguments: [
        (#"{"name": "a", "interval_seconds": 1, "name": "b"}"#, "name"),
        (#"{"name": "a", "interval_seconds": 1, "n\u0061me": "b"}"#, "name"),
        (#"{"name": "a", "interval_seconds": 1, "tags": [{"label": "x"}, {"label": "y", "label": "z"}]}"#, "tags[1].label"),
    ])
    func aMemberNamedTwiceIs422(body: String, field: String) throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request("POST", "/v1/watches", headers: Self.json, body: Array(body.utf8))
        #expect(response.status == 422)
        #expect(response.problem?.detail == "\(field): appears more than once")
    }

    /// json-duplicate-members (Fuzz/corpus/json-duplicate-members/found-utf16):
    /// JSONDecoder reads UTF-16 and UTF-32 bodies too, while the duplicate
    /// scan reads UTF-8 bytes, so a UTF-16 body could name a member twice
    /// unseen (an escaped name, or a character whose low byte is a quote).
    /// RFC 8259 wants UTF-8: a body with a NUL byte (every UTF-16 or UTF-32
    /// JSON text has one; no UTF-8 one does) is refused.
    @Test(arguments: [#"{"url":"a"}"#, #"{"url":"a","\u0075rl":"b"}"#, #"{"url":"\#u{122}","url":"b"}"#])
    func aBodyNotInUTF8Is400(body: String) throws {
        struct Target: Decodable { var url: String }
        var utf16LE: [UInt8] = []
        for unit in body.utf16 { utf16LE += [UInt8(truncatingIfNeeded: unit), UInt8(unit >> 8)] }
        for bytes in [utf16LE, Array(body.utf8) + [0]] {
            let request = HTTPRequest(method: .post, path: "/", headers: ["Content-Type": "application/json"], body: bytes)
            let error = try #require(throws: HTTPError.self) { _ = try request.decodeJSON(Target.self) }
            #expect(error.status == .badRequest, "\(error)")
        }
    }

    /// Nesting as deep as the body limit allows is refused on the server's
    /// own threads, whose stacks are smaller than the main thread's: a
    /// recursive reader without a depth limit would overflow one and take
    /// the process down. The server then serves the next request.
    @Test(arguments: ["[", #"{"tags":["#, #"{"name":{"#])
    func nestingAsDeepAsTheBodyAllowsIs400(opening: String) throws {
        let server = try TestServer(router: Self.makeRouter())
        let body = Array(String(repeating: opening, count: 900_000 / opening.utf8.count).utf8)
        let response = try server.request("POST", "/v1/watches", headers: Self.json, body: body)
        #expect(response.status == 400 || response.status == 422, "\(response.status) \(response.text.prefix(200))")
        #expect(response.headers["Content-Type"] == "application/problem+json")
        let next = try server.request(
            "POST", "/v1/watches", headers: Self.json, body: Array(#"{"interval_seconds": 60, "name": "docs"}"#.utf8)
        )
        #expect(next.status == 201)
    }

    /// The same name in different objects, or as a value, is no repeat.
    @Test func namesRepeatedAcrossObjectsAreFine() throws {
        let server = try TestServer(router: Self.makeRouter())
        let body = #"{"name": "name", "interval_seconds": 1, "tags": [{"label": "a"}, {"label": "a\"label"}]}"#
        let response = try server.request("POST", "/v1/watches", headers: Self.json, body: Array(body.utf8))
        #expect(response.status == 201, "\(response.text)")
    }

    @Test func emptyBodyIs400() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request("POST", "/v1/watches", headers: Self.json)
        #expect(response.status == 400)
        #expect(response.problem?.detail == "The request body is empty.")
    }

    @Test func wrongContentTypeIs415() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request(
            "POST", "/v1/watches", headers: [("Content-Type", "text/plain")],
            body: Array(#"{"name":"x","interval_seconds":1}"#.utf8)
        )
        #expect(response.status == 415)
        #expect(response.problem?.status == 415)
    }

    @Test(arguments: [
        ("application/json", 201), ("Application/JSON", 201), (" application/json ; charset=utf-8", 201),
        ("application/json;charset=utf-8", 201), ("application/jsonx", 415), ("text/json", 415),
        ("application/json-patch+json", 415), ("", 415),
    ])
    func mediaTypeIsComparedWithoutCaseAndParameters(contentType: String, status: Int) throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request(
            "POST", "/v1/watches", headers: [("Content-Type", contentType)],
            body: Array(#"{"name":"x","interval_seconds":1}"#.utf8)
        )
        #expect(response.status == status)
    }

    @Test func wrongTypeIs422NamingTheField() throws {
        let server = try TestServer(router: Self.makeRouter())
        let response = try server.request(
            "POST", "/v1/watches", headers: Self.json,
            body: Array(#"{"name":"x","interval_seconds":"soon"}"#.utf8)
        )
        #expect(response.status == 422)
        #expect(response.problem?.detail == "interval_seconds: expected an integer")
        #expect(response.problem?.field == "interval_seconds")
    }

    @Test func missingAndNestedFieldsAreNamed() throws {
        let server = try TestServer(router: Self.makeRouter())
        let missing = try server.request("POST", "/v1/watches", headers: Self.json, body: Array(#"{"name":"x"}"#.utf8))
        #expect(missing.problem?.detail == "interval_seconds: is required")
        let nested = try server.request(
            "POST", "/v1/watches", headers: Self.json,
            body: Array(#"{"name":"x","interval_seconds":5,"tags":[{"label":"a"},{"label":7}]}"#.utf8)
        )
        #expect(nested.status == 422)
        #expect(nested.problem?.detail == "tags[1].label: expected a string")
    }

    @Test func encodingUsesSortedKeysUnescapedSlashesAndFractionalDates() {
        let response = HTTPResponse.json(Stamp(at: Date(timeIntervalSince1970: 1_700_000_000.25), url: "https://a/b"))
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"at":"2023-11-14T22:13:20.250Z","url":"https://a/b"}"#)
    }

    @Test func decodingAcceptsDatesWithAndWithoutFractions() throws {
        for text in ["2023-11-14T22:13:20.250Z", "2023-11-14T22:13:20Z"] {
            let request = HTTPRequest(
                method: .post, path: "/", headers: ["Content-Type": "application/json"],
                body: Array(#"{"at":"\#(text)","url":"u"}"#.utf8)
            )
            let stamp = try request.decodeJSON(Stamp.self)
            #expect(abs(stamp.at.timeIntervalSince1970 - 1_700_000_000) < 1)
        }
    }
}
