import Foundation
import TidingsCrypto

/// The dashboard's files (`dashboard/` beside `migrations/`), read once at
/// start-up into memory. Requests are answered from this table only, so a
/// request path never reaches the file system: `..`, encoded slashes or NUL
/// in a name can only miss.
struct DashboardAssets: Sendable {
    struct Asset: Sendable {
        let body: [UInt8]
        let contentType: String
        /// A strong validator: the first 128 bits of the body's SHA-256.
        let entityTag: String
    }

    struct Missing: Error, CustomStringConvertible {
        let directory: String

        var description: String {
            "cannot find the dashboard's index.html in \(directory); set TIDINGS_DASHBOARD=false to run without it"
        }
    }

    /// Flat names only: lower-case letters, digits and dashes, one known
    /// extension. Anything else in the folder is not served.
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml",
        "png": "image/png",
    ]

    let files: [String: Asset]

    subscript(name: String) -> Asset? {
        files[name]
    }

    static func load(from directory: String) throws -> DashboardAssets {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var files: [String: Asset] = [:]
        for name in names {
            guard let contentType = servedContentType(name) else { continue }
            let path = (directory as NSString).appendingPathComponent(name)
            let body = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let tag = String(SHA256.hash(body).hex.prefix(32))
            files[name] = Asset(body: body, contentType: contentType, entityTag: "\"\(tag)\"")
        }
        guard files["index.html"] != nil else { throw Missing(directory: directory) }
        return DashboardAssets(files: files)
    }

    static func servedContentType(_ name: String) -> String? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64,
            parts[0].utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D })
        else { return nil }
        return contentTypes[String(parts[1])]
    }
}
