import Foundation
import Testing
import TidingsApp
import TidingsDomain
import TidingsTestSupport

@Suite struct WatchesValidationAPITests {
    static let url = APITestServer.publicURL

    @Test(arguments: [
        (#"{}"#, "url"),
        (#"{"url": 5}"#, "url"),
        (#"{"url": null}"#, "url"),
        (#"{"url": "ftp://93.184.215.14/"}"#, "url"),
        (#"{"url": "not a url"}"#, "url"),
        (#"{"url": "https://user:pw@93.184.215.14/"}"#, "url"),
        (#"{"url": "https://93.184.215.14/\#(String(repeating: "a", count: 2040))"}"#, "url"),
        (#"{"url": "https://93.184.215.14/", "name": ""}"#, "name"),
        (#"{"url": "https://93.184.215.14/", "name": "\#(String(repeating: "n", count: 201))"}"#, "name"),
        (#"{"url": "https://93.184.215.14/", "name": 7}"#, "name"),
        // Optional is not nullable: openapi.yaml has no null for these.
        (#"{"url": "https://93.184.215.14/", "name": null}"#, "name"),
        (#"{"url": "https://93.184.215.14/", "interval_seconds": null}"#, "interval_seconds"),
        (#"{"url": "https://93.184.215.14/", "headers": null}"#, "headers"),
        (#"{"url": "https://93.184.215.14/", "extract": null}"#, "extract"),
        (#"{"url": "https://93.184.215.14/", "extract": {"css": "h1", "ignore": null}}"#, "extract.ignore"),
        (#"{"url": "https://93.184.215.14/", "extract": {"css": null, "xpath": "//h1"}}"#, "extract.css"),
        (#"{"url": "https://93.184.215.14/", "version_url": null, "version_pointer": null}"#, "version_url"),
        (#"{"url": "https://93.184.215.14/", "interval_seconds": "300"}"#, "interval_seconds"),
        (#"{"url": "https://93.184.215.14/", "interval_seconds": 29}"#, "interval_seconds"),
        (#"{"url": "https://93.184.215.14/", "interval_seconds": 86401}"#, "interval_seconds"),
        (#"{"url": "https://93.184.215.14/", "interval_seconds": -1}"#, "interval_seconds"),
        (#"{"url": "https://93.184.215.14/", "version_url": "https://93.184.215.14/v"}"#, "version_pointer"),
        (#"{"url": "https://93.184.215.14/", "version_pointer": "/v"}"#, "version_url"),
        (#"{"url": "https://93.184.215.14/", "version_url": "gopher://x/", "version_pointer": "/v"}"#, "version_url"),
        (#"{"url": "https://93.184.215.14/", "version_url": "https://93.184.215.14/v", "version_pointer": "version"}"#, "version_pointer"),
        (#"{"url": "https://93.184.215.14/", "version_url": "https://93.184.215.14/v", "version_pointer": "/a~2b"}"#, "version_pointer"),
        (#"{"url": "https://93.184.215.14/", "extract": {}}"#, "extract"),
        (#"{"url": "https://93.184.215.14/", "extract": "h1"}"#, "extract"),
        (#"{"url": "https://93.184.215.14/", "extract": {"css": "h1", "xpath": "//h1"}}"#, "extract"),
        (#"{"url": "https://93.184.215.14/", "extract": {"css": "h1", "foo": 1}}"#, "extract.foo"),
        (#"{"url": "https://93.184.215.14/", "extract": {"css": ""}}"#, "extract.css"),
        (#"{"url": "https://93.184.215.14/", "extract": {"xpath": 3}}"#, "extract.xpath"),
        // Rules that would fail every check are refused when set.
        (#"{"url": "https://93.184.215.14/", "extract": {"xpath": "///"}}"#, "extract.xpath"),
        (#"{"url": "https://93.184.215.14/", "extract": {"xpath": "unknown-fn()"}}"#, "extract.xpath"),
        (#"{"url": "https://93.184.215.14/", "extract": {"xpath": "$x"}}"#, "extract.xpath"),
        (#"{"url": "https://93.184.215.14/", "extract": {"xpath": "//a:b"}}"#, "extract.xpath"),
        (#"{"url": "https://93.184.215.14/", "extract": {"css": "a["}}"#, "extract.css"),
        (#"{"url": "https://93.184.215.14/", "extract": {"css": "h1 >"}}"#, "extract.css"),
        (#"{"url": "https://93.184.215.14/", "extract": {"json_pointer": "a/b"}}"#, "extract.json_pointer"),
        (#"{"url": "https://93.184.215.14/", "extract": {"css": "h1", "ignore": "\\d+"}}"#, "extract.ignore"),
        (#"{"url": "https://93.184.215.14/", "extract": {"css": "h1", "ignore": ["a", "b", "(unclosed"]}}"#, "extract.ignore[2]"),
        // Valid for Swift Regex, outside the linear-time subset.
        (#"{"url": "https://93.184.215.14/", "extract": {"css": "h1", "ignore": ["(a)\\1"]}}"#, "extract.ignore[0]"),
        (#"{"url": "https://93.184.215.14/", "extract": {"css": "h1", "ignore": ["x(?=y)"]}}"#, "extract.ignore[0]"),
        (#"{"url": "https://93.184.215.14/", "extract": {"css": "h1", "ignore": ["a", 5]}}"#, "extract.ignore[1]"),
        (#"{"url": "https://93.184.215.14/", "extract": {"css": "h1", "ignore": ["a\u0000b"]}}"#, "extract.ignore[0]"),
        (#"{"url": "https://93.184.215.14/", "version_url": "https://93.184.215.14/v", "version_pointer": "/a\u0000"}"#, "version_pointer"),
        (#"{"url": "https://93.184.215.14/", "extract": {"json_pointer": "/\u0001"}}"#, "extract.json_pointer"),
        (#"{"url": "https://93.184.215.14/", "extract": {"raw": false}}"#, "extract.raw"),
        (#"{"url": "https://93.184.215.14/", "extract": {"raw": "true"}}"#, "extract.raw"),
        (#"{"url": "https://93.184.215.14/", "extract": {"raw": 1}}"#, "extract.raw"),
        (#"{"url": "https://93.184.215.14/", "extract": {"raw": null}}"#, "extract.raw"),
        (#"{"url": "https://93.184.215.14/", "extract": {"raw": true, "css": "h1"}}"#, "extract.raw"),
        (#"{"url": "https://93.184.215.14/", "extract": {"raw": true, "json_pointer": "/a"}}"#, "extract.raw"),
        (#"{"url": "https://93.184.215.14/", "extract": {"raw": true, "ignore": ["(unclosed"]}}"#, "extract.ignore[0]"),
        (
            #"{"url": "https://93.184.215.14/", "extract": {"css": "h1", "ignore": [\#((0..<21).map { "\"p\($0)\"" }.joined(separator: ","))]}}"#,
            "extract.ignore"
        ),
        (#"{"url": "https://93.184.215.14/", "headers": ["Authorization"]}"#, "headers"),
        (#"{"url": "https://93.184.215.14/", "headers": {"X-Count": 5}}"#, "headers.X-Count"),
        (#"{"url": "https://93.184.215.14/", "headers": {"Bad Name": "v"}}"#, "headers.Bad Name"),
        (#"{"url": "https://93.184.215.14/", "headers": {"Host": "evil.example"}}"#, "headers.Host"),
        (
            #"{"url": "https://93.184.215.14/", "headers": {"\#(String(repeating: "a", count: 257))": "v"}}"#,
            "headers." + String(repeating: "a", count: 257)
        ),
        (#"{"url": "https://93.184.215.14/", "url": "https://93.184.215.15/"}"#, "url"),
        (#"{"url": "https://93.184.215.14/", "headers": {"content-length": "5"}}"#, "headers.content-length"),
        (#"{"url": "https://93.184.215.14/", "headers": {"Transfer-Encoding": "chunked"}}"#, "headers.Transfer-Encoding"),
        (#"{"url": "https://93.184.215.14/", "headers": {"Connection": "close"}}"#, "headers.Connection"),
        (#"{"url": "https://93.184.215.14/", "headers": {"X-A": "line\nbreak"}}"#, "headers.X-A"),
        (#"{"url": "https://93.184.215.14/", "headers": {"X-A": "   "}}"#, "headers.X-A"),
        (#"{"url": "https://93.184.215.14/", "headers": {"X-A": "1", "x-a": "2"}}"#, "headers.x-a"),
        (#"{"url": "https://93.184.215.14/", "headers": {\#((0..<21).map { "\"X-H\($0)\": \"v\"" }.joined(separator: ","))}}"#, "headers"),
        (#"{"url": "https://93.184.215.14/", "paused": true}"#, "paused"),
        (#"{"url": "https://93.184.215.14/", "state": "ok"}"#, "state"),
    ])
    func invalidCreateBodiesNameTheField(json: String, field: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let response = try await server.send("POST", "/v1/watches", token: key, rawBody: Array(json.utf8))
        #expect(response.status == 422, "\(response.text)")
        #expect(response.isProblem)
        let detail = try #require(try response.object()["detail"] as? String)
        #expect(detail.hasPrefix(field + ": "), "\(detail)")
        #expect(try server.watchCount() == 0 && server.targetCount() == 0, "no partial write")
    }

    /// Rules the empty-page check must not refuse: what real watches use.
    @Test(arguments: [
        ["xpath": "//h1"], ["xpath": "string(//title)"], ["xpath": "count(//p) > 0"],
        ["xpath": "//*[@id='main']//text()"], ["xpath": "//div[contains(@class, 'price')]"],
        ["css": "h1"], ["css": "div.a > p"], ["css": "#main"], ["css": "a[href]"], ["css": "ul li"],
    ])
    func workingRulesAreAccepted(rule: [String: String]) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let response = try await server.send("POST", "/v1/watches", token: key, json: ["url": Self.url, "extract": rule])
        #expect(response.status == 201, "\(response.text)")
    }

    @Test(arguments: [
        (#"{"url": null}"#, "url"),
        (#"{"name": null}"#, "name"),
        (#"{"interval_seconds": null}"#, "interval_seconds"),
        (#"{"paused": "yes"}"#, "paused"),
        (#"{"interval_seconds": 10}"#, "interval_seconds"),
        (#"{"version_url": null}"#, "version_url"),
        (#"{"version_pointer": "/x", "version_url": null}"#, "version_url"),
        (#"{"headers": {"Connection": "close"}}"#, "headers.Connection"),
        (#"{"extract": {"json_pointer": "/a", "ignore": ["[z-a]"]}}"#, "extract.ignore[0]"),
        (#"{"owner": "someone-else"}"#, "owner"),
        (#"{"name": "ok", "extract": {"css": "p", "bar": true}}"#, "extract.bar"),
    ])
    func invalidPatchesNameTheFieldAndChangeNothing(json: String, field: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let watch = try await server.createWatch(
            token: key,
            [
                "url": Self.url, "name": "Original", "version_url": "https://93.184.215.14/version", "version_pointer": "/v",
            ])
        let id = try #require(watch["id"] as? String)
        let response = try await server.send("PATCH", "/v1/watches/\(id)", token: key, rawBody: Array(json.utf8))
        #expect(response.status == 422, "\(response.text)")
        #expect((try response.object()["detail"] as? String)?.hasPrefix(field + ": ") == true, "\(response.text)")
        let after = try await server.send("GET", "/v1/watches/\(id)", token: key)
        #expect(try after.object()["name"] as? String == "Original")
        #expect(try after.object()["updated_at"] as? String == watch["updated_at"] as? String, "no partial write")
    }

    @Test func versionFieldsCanBeReplacedOneAtATime() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let watch = try await server.createWatch(token: key, ["url": Self.url])
        let id = try #require(watch["id"] as? String)
        let both = try await server.send(
            "PATCH", "/v1/watches/\(id)", token: key,
            json: [
                "version_url": "https://93.184.215.14/version", "version_pointer": "",
            ])
        #expect(both.status == 200, "\(both.text)")
        let pointer = try await server.send("PATCH", "/v1/watches/\(id)", token: key, json: ["version_pointer": "/tag_name"])
        #expect(pointer.status == 200)
        #expect(try pointer.object()["version_url"] as? String == "https://93.184.215.14/version")
        #expect(try pointer.object()["version_pointer"] as? String == "/tag_name")
    }

    @Test func malformedRequestsAreRejectedClearly() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let watch = try await server.createWatch(token: key, ["url": Self.url])
        let id = try #require(watch["id"] as? String)

        let notJSON = try await server.send("POST", "/v1/watches", token: key, rawBody: Array(#"{"url": "#.utf8))
        #expect(notJSON.status == 400 && notJSON.isProblem)
        let notObject = try await server.send("POST", "/v1/watches", token: key, rawBody: Array("[1, 2]".utf8))
        #expect(notObject.status == 422 && notObject.isProblem)
        let fraction = try await server.send(
            "POST", "/v1/watches", token: key, rawBody: Array(#"{"url": "\#(Self.url)", "interval_seconds": 300.5}"#.utf8))
        #expect(fraction.status == 422)
        let form = try await server.send(
            "POST", "/v1/watches", token: key, rawBody: Array("url=x".utf8), contentType: "application/x-www-form-urlencoded")
        #expect(form.status == 415 && form.isProblem)
        let patchForm = try await server.send(
            "PATCH", "/v1/watches/\(id)", token: key, rawBody: Array("name=x".utf8), contentType: "text/plain")
        #expect(patchForm.status == 415)
        let patchBroken = try await server.send("PATCH", "/v1/watches/\(id)", token: key, rawBody: Array("{".utf8))
        #expect(patchBroken.status == 400)

        for (method, path) in [
            ("GET", "/v1/watches/nope"), ("PATCH", "/v1/watches/nope"), ("DELETE", "/v1/watches/123"),
            ("POST", "/v1/watches/nope/pause"), ("POST", "/v1/watches/nope/resume"),
        ] {
            let response = try await server.send(method, path, token: key, json: method == "PATCH" ? ["name": "x"] : nil)
            #expect(response.status == 400, "\(method) \(path)")
            #expect((try response.object()["detail"] as? String)?.hasPrefix("id: ") == true)
        }
        let missing = try await server.send("GET", "/v1/watches/\(UUID().uuidString)", token: key)
        #expect(missing.status == 404 && missing.isProblem)

        for query in ["paused=yes", "state=paused", "state=OK", "limit=0", "limit=201", "cursor=%25%25"] {
            let response = try await server.send("GET", "/v1/watches?\(query)", token: key)
            #expect(response.status == 400, "\(query)")
            let field = String(query.prefix { $0 != "=" })
            #expect((try response.object()["detail"] as? String)?.hasPrefix(field + ": ") == true, "\(response.text)")
        }
        #expect(try server.watchCount() == 1)
    }

    @Test func defaultNameFitsTheNameLimit() throws {
        let host = (0..<5).map { _ in String(repeating: "a", count: 60) }.joined(separator: ".")
        let settings = WatchSettings(url: try URLNormalizer.normalize("https://\(host)/"))
        #expect(settings.name.unicodeScalars.count == WatchSettings.maximumNameLength)
        #expect(host.hasPrefix(settings.name))
    }

    @Test func intervalVariablesAreReadAndChecked() throws {
        let defaults = try Configuration(environment: [:])
        #expect(defaults.minimumInterval == .seconds(30) && defaults.maximumInterval == .seconds(86_400))
        let configured = try Configuration(environment: ["TIDINGS_MIN_INTERVAL": "1m", "TIDINGS_MAX_INTERVAL": "2h"])
        #expect(configured.minimumInterval == .seconds(60) && configured.maximumInterval == .seconds(7200))
        #expect {
            try Configuration(environment: ["TIDINGS_MIN_INTERVAL": "2h", "TIDINGS_MAX_INTERVAL": "1h"])
        } throws: { error in
            (error as? ConfigurationError)?.variable == "TIDINGS_MAX_INTERVAL"
        }
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["TIDINGS_MIN_INTERVAL": "30"]) }
    }

    @Test func intervalBoundsComeFromConfiguration() async throws {
        let server = try APITestServer {
            $0.minimumInterval = .seconds(600)
            $0.maximumInterval = .seconds(3600)
        }
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let watch = try await server.createWatch(token: key, ["url": Self.url])
        #expect(watch["interval_seconds"] as? Int == 600, "the default moves inside the bounds")
        let tooShort = try await server.send("POST", "/v1/watches", token: key, json: ["url": Self.url, "interval_seconds": 300])
        #expect(tooShort.status == 422)
        #expect(try tooShort.object()["detail"] as? String == "interval_seconds: must be from 600 to 3600")
        let longest = try await server.send("POST", "/v1/watches", token: key, json: ["url": Self.url, "interval_seconds": 3600])
        #expect(longest.status == 201)
    }
}
