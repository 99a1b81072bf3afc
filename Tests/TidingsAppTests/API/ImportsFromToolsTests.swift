import Foundation
import Testing
import TidingsTestSupport

/// Imports of files made by the tools themselves: changedetection.io's
/// backup zip (its datastore and backup code) and urlwatch's urls.yaml
/// (its `--add`), written by scripts/imports/make_exports.py in the venv
/// scripts/run-tests.sh installs.
@Suite struct ImportsFromToolsTests {
    /// The tools' files, made once for the suite.
    static let exports: Result<URL, ToolError> = Result { () throws(ToolError) in
        guard let python = ProcessInfo.processInfo.environment["TIDINGS_TEST_IMPORT_PYTHON"] else {
            throw ToolError(
                "TIDINGS_TEST_IMPORT_PYTHON is not set: run the tests with scripts/run-tests.sh, which installs changedetection.io and urlwatch"
            )
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tidings-tool-exports-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [MockPushServer.repositoryRoot + "/scripts/imports/make_exports.py", directory.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw ToolError("\(python) could not be started")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ToolError("make_exports.py exited with \(process.terminationStatus)") }
        return directory
    }

    struct ToolError: Error, Sendable, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private func file(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: try Self.exports.get().appendingPathComponent(name)))
    }

    @Test func changedetectionsOwnBackupZipImports() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let backup = try file("backup.zip")
        let response = try await server.send("POST", "/v1/imports", token: key, rawBody: backup, contentType: "application/zip")
        #expect(response.status == 201, "\(response.text)")
        let answer = try response.object()
        #expect(answer["format"] as? String == "changedetection")
        #expect((answer["rejected"] as? [Any])?.isEmpty == true, "\(answer)")
        let created = try #require(answer["created"] as? [[String: Any]])
        #expect(
            Set(created.compactMap { $0["url"] as? String }) == [
                "https://93.184.215.14/prices", "https://93.184.215.14/news", "https://93.184.215.14/plain",
            ])
        let prices = try #require(created.first { $0["url"] as? String == "https://93.184.215.14/prices" })
        #expect(prices["name"] as? String == "Prices")
        #expect(prices["interval_seconds"] as? Int == 600)
        #expect(prices["paused"] as? Bool == true)
        #expect(prices["header_names"] as? [String] == ["authorization"])
        #expect((prices["extract"] as? [String: Any])?["css"] as? String == "#price")
        #expect((prices["extract"] as? [String: Any])?["ignore"] as? [String] == ["(?i)Updated at"])
        let news = try #require(created.first { $0["url"] as? String == "https://93.184.215.14/news" })
        #expect((news["extract"] as? [String: Any])?["xpath"] as? String == "//div[@id='news']")
        // The backup's default interval: three hours.
        #expect(news["interval_seconds"] as? Int == 10_800)

        let again = try await server.send("POST", "/v1/imports", token: key, rawBody: backup, contentType: "application/zip")
        #expect(again.status == 200, "\(again.text)")
        #expect(try again.object()["existing"] as? Int == 3)
        #expect(try server.watchCount() == 3)
    }

    @Test func urlwatchsOwnJobListImports() async throws {
        let server = try APITestServer()
        defer { server.stop() }
        let (_, key) = try await server.createUser()
        let jobs = try file("urls.yaml")
        let response = try await server.send(
            "POST", "/v1/imports?skip_rejected=true", token: key, rawBody: jobs, contentType: "application/yaml")
        #expect(response.status == 201, "\(response.text)")
        let answer = try response.object()
        #expect(answer["format"] as? String == "urlwatch")
        let created = try #require(answer["created"] as? [[String: Any]])
        #expect(created.map { $0["url"] as? String } == ["https://93.184.215.14/shop", "https://93.184.215.14/table"])
        #expect(created.first?["name"] as? String == "Shop")
        #expect((created.first?["extract"] as? [String: Any])?["css"] as? String == "div.price")
        #expect((created.last?["extract"] as? [String: Any])?["xpath"] as? String == "//table[1]")
        let rejected = try #require(answer["rejected"] as? [[String: Any]])
        #expect(rejected.count == 1)
        #expect((rejected.first?["reason"] as? String)?.contains("shell command") == true)
    }
}
