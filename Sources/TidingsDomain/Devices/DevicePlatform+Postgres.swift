import TidingsPostgres

extension DevicePlatform: PostgresEncodable, PostgresDecodable {
    package var postgresText: String {
        rawValue
    }

    package init(postgresText: String) throws(PostgresError) {
        guard let platform = DevicePlatform(rawValue: postgresText) else {
            throw PostgresError(code: .decoding, message: "\(postgresText.debugDescription.prefix(40)) is not a device platform")
        }
        self = platform
    }
}
