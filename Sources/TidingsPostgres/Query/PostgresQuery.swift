/// A SQL statement with its parameters kept apart from its text.
///
/// String interpolation turns every interpolated value into a `$n`
/// placeholder and appends its text form to `binds`, so a value can never
/// change the statement:
///
///     let query: PostgresQuery = "SELECT name FROM users WHERE id = \(id)"
///     // sql: "SELECT name FROM users WHERE id = $1", binds: [id.postgresText]
///
/// The only way to put text into the SQL itself is `\(unsafeSQL:)`, for
/// identifiers that code (not input) decides.
package struct PostgresQuery: Sendable, ExpressibleByStringInterpolation {
    package let sql: String
    /// The text form of each `$n` parameter, in order; nil is SQL NULL.
    package let binds: [String?]

    package init(unsafeSQL sql: String, binds: [String?] = []) {
        self.sql = sql
        self.binds = binds
    }

    package init(stringLiteral value: String) {
        self.init(unsafeSQL: value)
    }

    package init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    package struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var sql: String
        fileprivate var binds: [String?]

        package init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + 3 * interpolationCount)
            binds = []
            binds.reserveCapacity(interpolationCount)
        }

        package mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        package mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value) {
            appendBind(value.postgresText)
        }

        /// nil binds SQL NULL.
        package mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            appendBind(value?.postgresText)
        }

        /// Splices `unsafeSQL` into the statement text as is: only for
        /// identifiers or fragments built by code, never for input.
        package mutating func appendInterpolation(unsafeSQL fragment: String) {
            sql += fragment
        }

        private mutating func appendBind(_ text: String?) {
            binds.append(text)
            sql += "$\(binds.count)"
        }
    }
}
