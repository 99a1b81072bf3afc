import Foundation
import Testing
import TidingsApp
import TidingsTestSupport

/// `POST /v1/imports` and `GET /v1/watches/export` (decision 0055): each
/// format maps what it can, names what it cannot, writes all or nothing,
/// and importing a file twice creates nothing new.
@Suite struct ImportsAPITests {
    static let changedetection = """
        {"note": "url-watches.json", "settings": {"requests": {"time_between_check": {"weeks": null, "days": null, "hours": 3, "minutes": null, "seconds": null}}},
         "watching": {
          "0b9c2f9e-1111-4c5e-9a0e-000000000001": {"url": "https://93.184.215.14/prices", "title": "Prices",
            "include_filters": ["#price", ".sale"], "ignore_text": ["Updated at", "/\\\\d+ visitors/"],
            "time_between_check": {"weeks": null, "days": null, "hours": null, "minutes": 10, "seconds": null},
            "headers": {"Authorization": "Bearer secret-token"}, "paused": true},
          "0b9c2f9e-1111-4c5e-9a0e-000000000002": {"url": "https://93.184.215.14/news", "title": "",
            "include_filters": ["xpath://div[@id='news']"], "time_between_check": {"weeks": null, "days": null, "hours": null, "minutes": null, "seconds": null}},
          "0b9c2f9e-1111-4c5e-9a0e-000000000003": {"url": "https://93.184.215.14/mixed", "include_filters": ["#a", "//b"]},
          "0b9c2f9e-1111-4c5e-9a0e-000000000004": {"url": "not a url"}
         }}
        """

    static let urlwatch = """
        name: "Shop"
        url: "https://93.184.215.14/shop"
        filter:
          - css: "div.price"
          - html2text
        headers:
          Accept-Language: en
        ---
        url: https://93.184.215.14/plain   # a comment
        ---
        name: Disk
        command: df -h
        ---
        url: https://93.184.215.14/xpath
        filter:
          - xpath:
              path: //table[1]
          - strip
        """

    static let opml = """
        <?xml version="1.0"?>
        <!DOCTYPE opml [
          <!ENTITY lol "lol">
          <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
          <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
        ]>
        <opml version="2.0"><head><title>&lol3;</title></head><body>
          <outline text="Tech">
            <outline text="Feed &amp; One" type="rss" xmlUrl="https://93.184.215.14/feed.xml?a=1&amp;b=2"/>
            <outline text="Feed Two" type="rss" xmlUrl="https://93.184.215.14/two.xml"/>
          </outline>
        </body></opml>
        """

    private func post(
        _ server: APITestServer, _ key: String, _ body: String, query: String = "", contentType: String = "application/octet-stream"
    )
        async throws -> APITestServer.Response
    {
        try await server.send("POST", "/v1/imports\(query)", token: key, rawBody: Array(body.utf8), contentType: contentType)
    }

    @Test func aChangedetectionBackupMapsItsFieldsAndNamesWhatItCannot() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()

        let dry = try await post(server, key, Self.changedetection, query: "?dry_run=true", contentType: "application/json")
        #expect(dry.status == 200, "\(dry.text)")
        let answer = try dry.object()
        #expect(answer["dry_run"] as? Bool == true)
        #expect(answer["format"] as? String == "changedetection")
        #expect(answer["existing"] as? Int == 0)
        let created = try #require(answer["created"] as? [[String: Any]])
        #expect(created.count == 2)
        let prices = try #require(created.first { $0["url"] as? String == "https://93.184.215.14/prices" })
        #expect(prices["name"] as? String == "Prices")
        #expect(prices["interval_seconds"] as? Int == 600)
        #expect(prices["paused"] as? Bool == true)
        #expect(prices["header_names"] as? [String] == ["authorization"])
        let extract = try #require(prices["extract"] as? [String: Any])
        #expect(extract["css"] as? String == "#price, .sale")
        #expect(extract["ignore"] as? [String] == ["(?i)Updated at", "\\d+ visitors"])
        let news = try #require(created.first { $0["url"] as? String == "https://93.184.215.14/news" })
        #expect((news["extract"] as? [String: Any])?["xpath"] as? String == "//div[@id='news']")
        // The file's default: three hours.
        #expect(news["interval_seconds"] as? Int == 10_800)
        let rejected = try #require(answer["rejected"] as? [[String: Any]])
        #expect(rejected.map { $0["index"] as? Int } == [2, 3])
        #expect((rejected[0]["reason"] as? String)?.contains("mixes CSS and XPath") == true)
        #expect(rejected[1]["url"] as? String == "not a url")
        #expect((rejected[1]["reason"] as? String)?.hasPrefix("watch.url:") == true, "\(rejected[1])")
        #expect(try server.watchCount() == 0)

        // Not all mappable: a 422 naming them, nothing written.
        let refused = try await post(server, key, Self.changedetection)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(refused.isProblem)
        let detail = try #require(try refused.object()["detail"] as? String)
        #expect(detail.contains("2 entries") && detail.contains("[2]") && detail.contains("[3]"), "\(detail)")
        #expect(try server.watchCount() == 0)

        let imported = try await post(server, key, Self.changedetection, query: "?skip_rejected=true")
        #expect(imported.status == 201, "\(imported.text)")
        #expect((try imported.object()["created"] as? [[String: Any]])?.count == 2)
        #expect(try server.watchCount() == 2)

        // The same file again: nothing new.
        let again = try await post(server, key, Self.changedetection, query: "?skip_rejected=true")
        #expect(again.status == 200, "\(again.text)")
        #expect((try again.object()["created"] as? [[String: Any]])?.isEmpty == true)
        #expect(try again.object()["existing"] as? Int == 2)
        #expect(try server.watchCount() == 2)
    }

    @Test func urlwatchJobsMapTheirSelectorsAndRefuseCommands() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let answer = try await post(server, key, Self.urlwatch, query: "?dry_run=true", contentType: "application/yaml").object()
        #expect(answer["format"] as? String == "urlwatch")
        let created = try #require(answer["created"] as? [[String: Any]])
        #expect(
            created.map { $0["url"] as? String } == [
                "https://93.184.215.14/shop", "https://93.184.215.14/plain", "https://93.184.215.14/xpath",
            ])
        #expect(created[0]["name"] as? String == "Shop")
        #expect((created[0]["extract"] as? [String: Any])?["css"] as? String == "div.price")
        #expect(created[0]["header_names"] as? [String] == ["accept-language"])
        #expect(created[1]["extract"] is NSNull)
        #expect((created[2]["extract"] as? [String: Any])?["xpath"] as? String == "//table[1]")
        let rejected = try #require(answer["rejected"] as? [[String: Any]])
        #expect(rejected.count == 1)
        #expect(rejected.first?["index"] as? Int == 2)
        #expect(rejected.first?["url"] is NSNull)
        #expect((rejected.first?["reason"] as? String)?.contains("shell command") == true)
    }

    @Test func opmlGivesAWatchPerFeedAndDoesNotExpandDeclaredEntities() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let response = try await post(server, key, Self.opml, contentType: "text/x-opml")
        #expect(response.status == 201, "\(response.text)")
        let created = try #require(try response.object()["created"] as? [[String: Any]])
        #expect(created.map { $0["url"] as? String } == ["https://93.184.215.14/feed.xml?a=1&b=2", "https://93.184.215.14/two.xml"])
        #expect(created.map { $0["name"] as? String } == ["Feed & One", "Feed Two"])
    }

    @Test func anExportImportsBackAndAgainCreatesNothing() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let plain = try await server.createWatch(
            token: key,
            [
                "url": "https://93.184.215.14/a", "name": "A", "interval_seconds": 900, "max_interval_seconds": 3600,
                "extract": ["css": "main", "ignore": ["\\d+"]], "notify": "alert",
            ])
        _ = try await server.send("POST", "/v1/watches/\(try #require(plain["id"] as? String))/pause", token: key)
        _ = try await server.createWatch(token: key, ["url": "https://93.184.215.14/b", "headers": ["X-Key": "secret"]])

        let export = try await server.send("GET", "/v1/watches/export", token: key)
        #expect(export.status == 200, "\(export.text)")
        #expect(!export.text.contains("secret"))
        let document = try export.object()
        #expect(document["format"] as? String == "tidings-watches")
        let entries = try #require(document["watches"] as? [[String: Any]])
        #expect(entries.count == 2)
        #expect(entries.compactMap { $0["withheld_headers"] as? [String] } == [[], ["x-key"]])

        // The same user: everything exists already (the withheld header
        // entry cannot be mapped without its value).
        let again = try await server.send("POST", "/v1/imports?skip_rejected=true", token: key, rawBody: export.body)
        #expect(again.status == 200, "\(again.text)")
        #expect(try again.object()["existing"] as? Int == 1)
        #expect(
            (try again.object()["rejected"] as? [[String: Any]])?.first?["reason"] as? String
                == "withheld_headers: the value of header x-key is not exported (header values are write-only); give it in watch.headers, or import with skip_rejected=true"
        )

        // Another user gets the same watches.
        let (_, other) = try await server.createUser()
        let imported = try await server.send("POST", "/v1/imports?skip_rejected=true", token: other, rawBody: export.body)
        #expect(imported.status == 201, "\(imported.text)")
        let created = try #require(try imported.object()["created"] as? [[String: Any]])
        #expect(created.count == 1)
        let copy = try #require(created.first)
        for field in ["url", "name", "interval_seconds", "max_interval_seconds", "notify"] {
            #expect("\(copy[field] ?? "nil")" == "\(plain[field] ?? "nil")", "\(field)")
        }
        #expect(copy["paused"] as? Bool == true)
        #expect((copy["extract"] as? [String: Any])?["css"] as? String == "main")
        #expect(try server.targetsWithoutTheirIdentity() == 0)
        // Shared targets: both users' watch of /a fetch one target.
        #expect(try server.targetCount() == 2)
    }

    @Test func anImportPastTheQuotaIsRefusedWhole() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (userID, key) = try await server.createUser()
        let limited = try await server.send(
            "PATCH", "/v1/users/\(userID)", token: APITestServer.adminToken, json: ["limits": ["watches": 2]])
        #expect(limited.status == 200, "\(limited.text)")
        _ = try await server.createWatch(token: key, ["url": "https://93.184.215.14/first"])
        let refused = try await post(server, key, Self.opml)
        #expect(refused.status == 403, "\(refused.text)")
        #expect(try refused.object()["limit"] as? String == "watches")
        #expect(try server.watchCount() == 1)
        let dry = try await post(server, key, Self.opml, query: "?dry_run=true")
        #expect(dry.status == 403, "\(dry.text)")
        // The counter matches the rows after the refusal.
        let shown = try await server.send("GET", "/v1/users/\(userID)", token: APITestServer.adminToken).object()
        #expect((shown["usage"] as? [String: Int])?["watches"] == 1, "\(shown)")
    }

    @Test func hostileFilesAreRefusedWithAProblemAndWriteNothing() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let laughs = "a: &a [\"lol\",\"lol\"]\nb: &b [*a,*a,*a]\nc: [*b,*b,*b]\nurl: https://93.184.215.14/x\n"
        var deep = ""
        for level in 0..<40 { deep += String(repeating: "  ", count: level) + "k\(level):\n" }
        let cases: [(String, String, String, Int)] = [
            ("empty", "", "", 400),
            ("unknown", "just some text", "", 415),
            ("bad format name", Self.opml, "?format=zip", 400),
            ("bad flag", Self.opml, "?dry_run=yes", 400),
            ("malformed JSON", "{\"watching\": {", "", 422),
            ("wrong type", "{\"watching\": [1, 2]}", "", 422),
            ("tidings wrong version", "{\"format\": \"tidings-watches\", \"version\": 2, \"watches\": []}", "", 422),
            (
                "tidings duplicate member",
                "{\"format\": \"tidings-watches\", \"format\": \"tidings-watches\", \"version\": 1, \"watches\": []}", "", 422
            ),
            ("yaml aliases", laughs, "?format=urlwatch", 422),
            ("yaml deep", "url: https://93.184.215.14/x\n" + deep, "?format=urlwatch", 422),
            ("yaml tabs", "url: x\n\tfilter: css", "?format=urlwatch", 422),
            ("yaml block scalar", "url: |\n  https://93.184.215.14/x\n", "?format=urlwatch", 422),
            ("opml without opml", "<html><body></body></html>", "?format=opml", 422),
            ("json nested", "{\"watching\": {\"a\": " + String(repeating: "[", count: 100_000) + "}}", "", 422),
            (
                "tidings nested",
                "{\"format\": \"tidings-watches\", \"version\": 1, \"watches\": " + String(repeating: "[", count: 100_000), "", 400
            ),
        ]
        for (name, body, query, status) in cases {
            let response = try await post(server, key, body, query: query)
            #expect(response.status == status, "\(name): \(response.text)")
            #expect(response.isProblem, "\(name)")
        }
        #expect(try server.watchCount() == 0)
    }

    @Test func blockedAddressesAreRejectedEntriesWithoutSayingWhich() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let jobs = """
            url: http://169.254.169.254/latest
            ---
            url: http://localhost:9000/status
            ---
            url: http://169.254.169.254/other
            ---
            url: https://93.184.215.14/fine
            """
        let answer = try await post(server, key, jobs, query: "?dry_run=true").object()
        #expect((answer["created"] as? [[String: Any]])?.count == 1)
        let rejected = try #require(answer["rejected"] as? [[String: Any]])
        #expect(rejected.map { $0["index"] as? Int } == [0, 1, 2])
        for entry in rejected {
            #expect(entry["reason"] as? String == "watch.url: the target is not allowed: its address is not publicly reachable", "\(entry)")
        }
    }

    /// An import file has its own body limit (`TIDINGS_MAX_IMPORT_SIZE`,
    /// 8 MiB): a file past the 1 MiB of API calls is read, every other
    /// route keeps 1 MiB, and a file past 8 MiB is refused (read and thrown
    /// away, so the client that sends it whole sees the 413).
    @Test func anImportFileMayExceedTheAPIBodyLimitUpToItsOwn() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let padding = "<!-- " + String(repeating: "x", count: 1_500_000) + " -->"
        let large = Self.opml.replacingOccurrences(of: "<body>", with: "<body>\(padding)")
        let dry = try await post(server, key, large, query: "?dry_run=true", contentType: "text/x-opml")
        #expect(dry.status == 200, "\(dry.text.prefix(300))")
        #expect((try dry.object()["created"] as? [Any])?.count == 2)

        let watch = try await server.send("POST", "/v1/watches", token: key, rawBody: Array(padding.utf8), contentType: "application/json")
        #expect(watch.status == 413)

        let huge = try await post(server, key, String(repeating: " ", count: (8 << 20) + 1), contentType: "text/x-opml")
        #expect(huge.status == 413)
        #expect((try huge.object()["detail"] as? String) == "The request body exceeds \(8 << 20) bytes.")
    }

    @Test func tooManyEntriesAreRefused() async throws {
        let server = try APITestServer { $0.maxBodySize = 4 << 20 }
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        var opml = "<opml><body>"
        for index in 0...10_000 { opml += "<outline xmlUrl=\"https://93.184.215.14/\(index)\"/>" }
        opml += "</body></opml>"
        let response = try await post(server, key, opml)
        #expect(response.status == 422, "\(response.text.prefix(300))")
        #expect((try response.object()["detail"] as? String)?.contains("at most 10000") == true)
    }
}

extension ImportsAPITests {
    /// A zip made by Python's zipfile (as changedetection.io makes its
    /// backups): `files` are name -> contents, deflated.
    static func zip(_ files: [(String, [UInt8])]) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-zip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var arguments = [
            "-c",
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
                for name, path in zip(sys.argv[2::2], sys.argv[3::2]):
                    z.write(path, arcname=name)
            """, directory.appendingPathComponent("out.zip").path,
        ]
        for (index, (name, contents)) in files.enumerated() {
            let path = directory.appendingPathComponent("f\(index)")
            try Data(contents).write(to: path)
            arguments += [name, path.path]
        }
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = arguments
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
        return [UInt8](try Data(contentsOf: directory.appendingPathComponent("out.zip")))
    }

    @Test func aBackupZipIsReadForItsDatastoreAndBombsAreRefused() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let backup = try Self.zip([
            ("secret.txt", Array("not read".utf8)),
            ("0b9c2f9e-1111-4c5e-9a0e-000000000001/history.txt", Array("1700000000,snapshot.txt\n".utf8)),
            ("url-watches.json", Array(Self.changedetection.utf8)),
        ])
        let dry = try await server.send("POST", "/v1/imports?dry_run=true", token: key, rawBody: backup, contentType: "application/zip")
        #expect(dry.status == 200, "\(dry.text)")
        #expect(try dry.object()["format"] as? String == "changedetection")
        #expect((try dry.object()["created"] as? [[String: Any]])?.count == 2)

        let zeros = [UInt8](repeating: 0x20, count: 40 << 20)
        let cases: [(String, [UInt8], String)] = [
            ("no datastore", try Self.zip([("secret.txt", Array("x".utf8))]), "holds neither url-watches.json nor changedetection.json"),
            ("too large", try Self.zip([("url-watches.json", zeros)]), "larger than"),
            ("ratio", try Self.zip([("url-watches.json", Array(zeros.prefix(4 << 20)))]), "expands more than"),
            ("truncated", Array(backup.prefix(backup.count / 2)), "end of central directory"),
        ]
        for (name, body, reason) in cases {
            let response = try await server.send("POST", "/v1/imports", token: key, rawBody: body, contentType: "application/zip")
            #expect(response.status == 422, "\(name): \(response.text)")
            #expect((try response.object()["detail"] as? String)?.contains(reason) == true, "\(name): \(response.text)")
        }
        #expect(try server.watchCount() == 0)
    }
}
