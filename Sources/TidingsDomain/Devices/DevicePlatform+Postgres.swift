import TidingsPostgres

extension DevicePlatform: PostgresEncodable, PostgresDecodable {
    public var postgresText: String {
        rawValue
    }

    public init(postgresText: String) throws(PostgresError) {
        guard let platform = DevicePlatform(rawValue: postgresText) else {
            throw PostgresError(code: .decoding, message: "\(postgresText.debugDescription.prefix(40)) is not a device platform")
        }
        self = platform
    }
}
