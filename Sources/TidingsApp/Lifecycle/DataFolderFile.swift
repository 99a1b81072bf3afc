import Foundation

/// A file of the data folder holding what Tidings generated for itself in
/// the `make run` laptop mode (the admin token, the secret key, the VAPID
/// key): read back at every start, and written once, with mode 0600, so
/// that only the service's own account can read it.
struct DataFolderFile {
    let path: String
    private let directory: URL

    init(named name: String, configuration: Configuration) {
        directory = URL(fileURLWithPath: configuration.dataDirectory).standardizedFileURL
        path = directory.appendingPathComponent(name).path
    }

    /// The file's text; nil when there is no file.
    func read() throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
    }

    /// Writes `text` as the file (mode 0600), making the data folder first.
    func create(_ text: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}
