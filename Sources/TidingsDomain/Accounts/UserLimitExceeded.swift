import Foundation
import TidingsPostgres

/// An insert refused because the user is at its limit for `resource`
/// (SQLSTATE TD001 from `enforce_user_limit`, migration 0018). The
/// statement failed, so the transaction wrote nothing.
package struct UserLimitExceeded: Error, Sendable, Equatable {
    package let resource: UserResource
    /// The limit the user is at; nil if the server's message did not say.
    package let maximum: Int?

    package init(resource: UserResource, maximum: Int?) {
        self.resource = resource
        self.maximum = maximum
    }

    static let sqlState = "TD001"

    /// The limit `error` reports, or nil when it is another failure.
    init?(_ error: PostgresError, resource: UserResource) {
        guard error.sqlState == Self.sqlState else { return nil }
        self.init(resource: resource, maximum: Self.maximum(in: error.message))
    }

    /// Runs `body`, turning a refusal by the limit trigger into this error.
    /// `resource` is what `body` inserts: the trigger of that table is the
    /// only one its statements fire.
    static func mapping<T>(_ resource: UserResource, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            if let exceeded = UserLimitExceeded(error, resource: resource) { throw exceeded }
            throw error
        }
    }

    /// N of "... maximum=N" in the trigger's message; the server adds only
    /// lines after it (context), never before.
    static func maximum(in message: String) -> Int? {
        guard let marker = message.range(of: "maximum=") else { return nil }
        let digits = message[marker.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return Int(digits)
    }
}
