import FoundationEssentials
import TidingsCrypto

/// One `name.sql` file of the functions directory: the current definition
/// of a function (or a small group, with their triggers), written with
/// CREATE OR REPLACE so it can run again whenever the file changes.
struct FunctionFile: Sendable {
    /// The file name, which is also the name recorded when it is applied.
    let name: String
    let sql: String
    /// SHA-256 of the file's bytes, in lower-case hex.
    let checksum: String

    /// The directory's ".sql" files ordered by name: a SQL-language
    /// function is checked when it is created, so one that calls another
    /// must sort after it (PL/pgSQL bodies resolve names when they run).
    static func load(directory: String) throws(PostgresError) -> [FunctionFile] {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw PostgresError(code: .migration, message: "cannot list functions directory \(directory): \(error)")
        }
        var files: [FunctionFile] = []
        for name in entries.sorted() where name.hasSuffix(".sql") {
            let bytes: Data
            do {
                bytes = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(name))
            } catch {
                throw PostgresError(code: .migration, message: "cannot read \(name): \(error)")
            }
            guard let sql = String(validating: bytes, as: UTF8.self) else {
                throw PostgresError(code: .migration, message: "\(name) is not valid UTF-8")
            }
            files.append(FunctionFile(name: name, sql: sql, checksum: SHA256.hash(bytes).hex))
        }
        return files
    }
}
