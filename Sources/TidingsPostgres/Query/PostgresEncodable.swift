/// A Swift value that can be sent as a query parameter in PostgreSQL's text
/// format.
package protocol PostgresEncodable: Sendable {
    /// The value as PostgreSQL's input function for the column type reads it.
    var postgresText: String { get }
}
