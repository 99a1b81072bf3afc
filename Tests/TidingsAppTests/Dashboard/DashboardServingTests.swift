import Foundation
import Testing
import TidingsHTTPServer
import TidingsTestSupport

@testable import TidingsApp

/// The dashboard's files over HTTP (decision 0054): the page, its scripts
/// and styles with their types, the security headers on every one, 304s,
/// hostile paths that can only miss, and TIDINGS_DASHBOARD=false.
@Suite struct DashboardServingTests {
    static let expectedPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    @Test func rootSendsTheBrowserToThePage() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.application.port)
        let response = try connection.request("GET", "/")
        #expect(response.status == 302)
        #expect(response.headers["Location"] == "/ui/")
        #expect(response.headers["Content-Security-Policy"] == Self.expectedPolicy)
    }

    @Test(arguments: [
        ("/ui/", "text/html; charset=utf-8", "<script type=\"module\" src=\"/ui/app.js\">"),
        ("/ui", "text/html; charset=utf-8", "<title>Tidings</title>"),
        ("/ui/app.js", "text/javascript; charset=utf-8", "import"),
        ("/ui/dashboard.css", "text/css; charset=utf-8", ":root"),
        ("/ui/icon.svg", "image/svg+xml", "<svg"),
    ])
    func filesAnswerWithTheirTypeAndTheSecurityHeaders(path: String, contentType: String, content: String) async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let response = try await server.send("GET", path)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == contentType)
        #expect(response.text.contains(content))
        #expect(response.header("Content-Security-Policy") == Self.expectedPolicy)
        #expect(response.header("X-Content-Type-Options") == "nosniff")
        #expect(response.header("X-Frame-Options") == "DENY")
        #expect(response.header("Referrer-Policy") == "no-referrer")
        #expect(response.header("Cache-Control") == "no-cache")
        #expect(response.header("ETag")?.hasPrefix("\"") == true)
    }

    @Test func theShippedPageHasNoInlineScriptOrStyle() throws {
        let directory = TestEnvironment.repositoryRoot + "/dashboard"
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".html") {
            let html = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
            // Every <script> has a src; no style attribute or element; no
            // event handler attribute; nothing from another origin.
            let scripts = html.components(separatedBy: "<script").dropFirst()
            #expect(scripts.allSatisfy { $0.prefix(while: { $0 != ">" }).contains("src=\"/ui/") }, "\(name) has an inline script")
            #expect(!html.contains("<style") && !html.contains("style="), "\(name) has an inline style")
            #expect(html.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil, "\(name) has an event handler attribute")
            #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("//cdn"), "\(name) names another origin")
        }
    }

    @Test func aMatchingTagAnswers304WithoutABody() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let first = try await server.send("GET", "/ui/app.js")
        let tag = try #require(first.header("ETag"))
        let connection = try RawHTTPConnection(port: server.application.port)
        for condition in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
            let response = try connection.request("GET", "/ui/app.js", headers: [("If-None-Match", condition)])
            #expect(response.status == 304, "\(condition)")
            #expect(response.body.isEmpty)
            #expect(response.headers["ETag"] == tag)
        }
        let changed = try connection.request("GET", "/ui/app.js", headers: [("If-None-Match", "\"stale\"")])
        #expect(changed.status == 200)
        #expect(changed.body == first.body)
    }

    /// Names are looked up in the table read at start-up, never on disk,
    /// so whatever the path holds it can only miss: 404 problem+json (or
    /// the server's own 400/414 for what it will not parse).
    @Test func hostilePathsOnlyMiss() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let huge = "/ui/" + String(repeating: "a", count: 20_000) + ".js"
        let targets = [
            "/ui/../openapi.yaml", "/ui/..%2Fopenapi.yaml", "/ui/%2e%2e%2fopenapi.yaml", "/ui/%2e%2e/%2e%2e/etc/passwd",
            "/ui/..%5c..%5cREADME.md", "/ui/app.js%00.html", "/ui/%00", "/ui/app.js/x", "/ui/APP.JS",
            "/ui/.hidden", "/ui/app", "/ui/app.js.map", "/ui/%252e%252e%252fREADME.md", "/ui//etc/passwd",
            "/ui/README.md", "/ui/..", "/ui/.", "/ui/%C0%AE%C0%AE%C0%AFREADME.md", huge,
        ]
        for target in targets {
            let connection = try RawHTTPConnection(port: server.application.port)
            let response = try connection.request("GET", target)
            #expect([400, 404, 414].contains(response.status), "\(target.prefix(60)): \(response.status)")
            #expect(
                !response.text.contains("openapi: ") && !response.text.contains("root:x:") && !response.text.contains("# Tidings"),
                "\(target.prefix(60))")
        }
        let connection = try RawHTTPConnection(port: server.application.port)
        #expect(try connection.request("GET", "/healthz").status == 200)
    }

    @Test func otherMethodsAre405() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        for method in ["POST", "PUT", "DELETE", "PATCH"] {
            let response = try await server.send(method, "/ui/app.js")
            #expect(response.status == 405, "\(method)")
            #expect(response.header("Allow") == "GET, HEAD")
        }
    }

    @Test func turnedOffItIsNotServed() async throws {
        let server = try APITestServer { $0.dashboardEnabled = false }
        defer { server.stop() }
        for path in ["/", "/ui/", "/ui/app.js"] {
            let response = try await server.send("GET", path)
            #expect(response.status == 404, "\(path)")
            #expect(response.isProblem)
        }
        #expect(try await server.send("GET", "/healthz").status == 200)
    }

    @Test func theVariableParsesAndDefaultsOn() throws {
        #expect(try Configuration(environment: [:]).dashboardEnabled)
        #expect(try Configuration(environment: ["TIDINGS_DASHBOARD": "false"]).dashboardEnabled == false)
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["TIDINGS_DASHBOARD": "maybe"]) }
    }

    @Test func aFolderWithoutThePageFailsStartUp() throws {
        try TemporaryDirectory.with(prefix: "tidings-dashboard") { folder in
            try TemporaryDirectory.write("body {}", to: folder + "/dashboard.css")
            #expect(throws: DashboardAssets.Missing.self) { try DashboardAssets.load(from: folder) }
            #expect(throws: DashboardAssets.Missing.self) { try DashboardAssets.load(from: folder + "/absent") }
        }
        #expect(DashboardAssets.servedContentType("app.js") == "text/javascript; charset=utf-8")
        for name in ["../app.js", "app.js.map", ".js", "App.js", "app.exe", "a/b.js", "app"] {
            #expect(DashboardAssets.servedContentType(name) == nil, "\(name)")
        }
    }
}
