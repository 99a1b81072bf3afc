import TidingsPostgres
package import TidingsPush

/// A `String` enum stored as its raw value in a `text` column (the column's
/// CHECK lists the same values).
protocol PostgresTextEnum: RawRepresentable<String>, PostgresEncodable, PostgresDecodable {}

extension PostgresTextEnum {
    package var postgresText: String {
        rawValue
    }

    package init(postgresText: String) throws(PostgresError) {
        guard let value = Self(rawValue: postgresText) else {
            throw PostgresError(code: .decoding, message: "\(postgresText.debugDescription.prefix(40)) is not a \(Self.self)")
        }
        self = value
    }
}

extension DevicePlatform: PostgresTextEnum {}
extension PushPlatform: PostgresTextEnum {}
extension APNsEnvironment: PostgresTextEnum {}
extension WatchState: PostgresTextEnum {}
extension CheckResult: PostgresTextEnum {}
