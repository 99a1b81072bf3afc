import Foundation

/// Finds the files Tidings ships beside its binary: `migrations/`,
/// `schema/functions/` and `openapi.yaml`, and `dashboard/` beside them.
/// Looked up once at start-up so a missing file fails fast.
struct ResourceLocator {
    struct Resources {
        let migrationsDirectory: String
        let functionsDirectory: String
        let openAPIPath: String
        /// The dashboard's files; checked when the dashboard is served.
        let dashboardDirectory: String
    }

    struct NotFound: Error, CustomStringConvertible {
        let searched: [String]

        var description: String {
            "cannot find migrations/, schema/functions/ and openapi.yaml; looked in \(searched.joined(separator: ", ")); set TIDINGS_RESOURCES_DIR"
        }
    }

    /// The configured folder, else the working directory, else the
    /// executable's `../share/tidings`, else `/usr/share/tidings`.
    static func locate(configured: String?) throws -> Resources {
        var candidates: [String] = []
        if let configured {
            candidates = [configured]
        } else {
            candidates.append(FileManager.default.currentDirectoryPath)
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            candidates.append(
                executable.deletingLastPathComponent().deletingLastPathComponent()
                    .appendingPathComponent("share/tidings").path)
            candidates.append("/usr/share/tidings")
        }
        for candidate in candidates {
            let migrations = (candidate as NSString).appendingPathComponent("migrations")
            let functions = (candidate as NSString).appendingPathComponent("schema/functions")
            let openAPI = (candidate as NSString).appendingPathComponent("openapi.yaml")
            if isDirectory(migrations), isDirectory(functions), FileManager.default.fileExists(atPath: openAPI) {
                return Resources(
                    migrationsDirectory: migrations,
                    functionsDirectory: functions,
                    openAPIPath: openAPI,
                    dashboardDirectory: (candidate as NSString).appendingPathComponent("dashboard")
                )
            }
        }
        throw NotFound(searched: candidates)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
