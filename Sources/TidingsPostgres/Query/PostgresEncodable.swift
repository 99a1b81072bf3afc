/// A Swift value that can be sent as a query parameter in PostgreSQL's text
/// format.
public protocol PostgresEncodable: Sendable {
    /// The value as PostgreSQL's input function for the column type reads it.
    var postgresText: String { get }

    /// Appends `postgresText`'s UTF-8 to `buffer`. `PostgresArray` builds
    /// batches of thousands of values this way; types whose text would be
    /// a heap-allocated `String` (UUIDs, timestamps) write their bytes
    /// directly instead.
    func appendPostgresText(to buffer: inout [UInt8])
}

extension PostgresEncodable {
    public func appendPostgresText(to buffer: inout [UInt8]) {
        buffer.append(contentsOf: postgresText.utf8)
    }
}
