import FoundationEssentials
import TidingsCrypto

/// One `NNNN_name.sql` file of a migrations directory.
struct MigrationFile: Sendable {
    let version: Int
    /// The file name, which is also the name recorded when it is applied.
    let name: String
    let sql: String
    /// SHA-256 of the file's bytes, in lower-case hex.
    let checksum: String

    /// The directory's migration files ordered by version. Files not ending
    /// in ".sql" are ignored; a ".sql" file without a numeric prefix, or two
    /// files with one number, is an error rather than silently skipped.
    static func load(directory: String) throws(PostgresError) -> [MigrationFile] {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw PostgresError(code: .migration, message: "cannot list migrations directory \(directory): \(error)")
        }
        var files: [MigrationFile] = []
        for entry in entries.sorted() where entry.hasSuffix(".sql") {
            files.append(try load(name: entry, directory: directory))
        }
        files.sort { $0.version < $1.version }
        for (previous, next) in zip(files, files.dropFirst()) where previous.version == next.version {
            throw PostgresError(code: .migration, message: "\(previous.name) and \(next.name) have the same version number")
        }
        return files
    }

    private static func load(name: String, directory: String) throws(PostgresError) -> MigrationFile {
        let digits = name.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let version = Int(digits), name.dropFirst(digits.count).hasPrefix("_"), name.count > digits.count + 5 else {
            throw PostgresError(code: .migration, message: "\(name) is not named NNNN_name.sql")
        }
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(name))
        } catch {
            throw PostgresError(code: .migration, message: "cannot read \(name): \(error)")
        }
        guard let sql = String(validating: bytes, as: UTF8.self) else {
            throw PostgresError(code: .migration, message: "\(name) is not valid UTF-8")
        }
        return MigrationFile(version: version, name: name, sql: sql, checksum: SHA256.hash(bytes).hex)
    }
}
