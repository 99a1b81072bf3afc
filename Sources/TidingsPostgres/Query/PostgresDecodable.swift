/// A Swift value that can be read from a column in PostgreSQL's text format.
public protocol PostgresDecodable {
    init(postgresText: String) throws(PostgresError)

    /// What SQL NULL decodes to; nil (the default) makes NULL an error.
    static var postgresNullValue: Self? { get }
}

extension PostgresDecodable {
    public static var postgresNullValue: Self? {
        nil
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public init(postgresText: String) throws(PostgresError) {
        self = try Wrapped(postgresText: postgresText)
    }

    public static var postgresNullValue: Self? {
        .some(nil)
    }
}
