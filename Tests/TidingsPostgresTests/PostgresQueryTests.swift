import Foundation
import Testing
import TidingsPostgres

/// Query building, text encodings and decodings, without a server.
@Suite struct PostgresQueryTests {
    @Test func interpolatedValuesBecomeNumberedParameters() {
        let name = "x'); DROP TABLE users; --"
        let missing: Int? = nil
        let query: PostgresQuery = "SELECT * FROM \(unsafeSQL: "users") WHERE name = \(name) AND age > \(42) AND parent = \(missing)"
        #expect(query.sql == "SELECT * FROM users WHERE name = $1 AND age > $2 AND parent = $3")
        #expect(query.binds == [name, "42", nil])
    }

    @Test func literalWithoutInterpolationHasNoBinds() {
        let query: PostgresQuery = "SELECT 1"
        #expect(query.sql == "SELECT 1" && query.binds.isEmpty)
    }

    @Test func encodesStandardTypes() {
        #expect(true.postgresText == "t")
        #expect(Double.infinity.postgresText == "Infinity")
        #expect((-Double.infinity).postgresText == "-Infinity")
        #expect(Double.nan.postgresText == "NaN")
        #expect(0.1.postgresText == "0.1")
        #expect([UInt8]([0x00, 0xab, 0xff]).postgresText == "\\x00abff")
        #expect(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!.postgresText == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
        #expect(Int64.min.postgresText == "-9223372036854775808")
    }

    @Test func formatsDatesInUTCWithMicroseconds() {
        #expect(Date(timeIntervalSince1970: 0).postgresText == "1970-01-01T00:00:00.000000Z")
        #expect(Date(timeIntervalSince1970: 1_795_965_576.123456).postgresText == "2026-11-29T15:19:36.123456Z")
        #expect(Date(timeIntervalSince1970: -0.5).postgresText == "1969-12-31T23:59:59.500000Z")
        #expect(Date(timeIntervalSince1970: 951_782_400).postgresText == "2000-02-29T00:00:00.000000Z")
    }

    /// UUIDs and timestamps write their bytes into batches directly
    /// (`appendPostgresText`); those bytes must be their text exactly,
    /// Foundation's spelling for UUIDs, the edges of the years for dates.
    @Test func bytesAppendedForBatchesAreTheText() {
        var ids = (0..<200).map { _ in UUID() }
        ids.append(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        ids.append(UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
        for id in ids {
            var bytes: [UInt8] = [0x7B]
            id.appendPostgresText(to: &bytes)
            #expect(id.postgresText == id.uuidString.lowercased())
            #expect(bytes == [0x7B] + Array(id.uuidString.lowercased().utf8))
        }
        let dates = [
            Date(timeIntervalSince1970: 1_795_965_576.123456), Date(timeIntervalSince1970: -62_135_596_800),
            Date(timeIntervalSince1970: 253_402_300_799.5), .distantFuture, .distantPast,
            Date(timeIntervalSince1970: 1e15), Date(timeIntervalSince1970: -1e15),
        ]
        let texts = dates.map(\.postgresText)
        #expect(
            texts == [
                "2026-11-29T15:19:36.123456Z", "0001-01-01T00:00:00.000000Z", "9999-12-31T23:59:59.500000Z",
                "infinity", "-infinity", "infinity", "-infinity",
            ])
        for (date, text) in zip(dates, texts) {
            var bytes: [UInt8] = []
            date.appendPostgresText(to: &bytes)
            #expect(bytes == Array(text.utf8))
        }
    }

    @Test(arguments: [
        ("2026-11-29 15:19:36.123456+00", 1_795_965_576.123456),
        ("2026-11-29 15:19:36+00", 1_795_965_576),
        ("2026-11-29 15:19:36.5", 1_795_965_576.5),
        ("2026-11-29 17:19:36.1+02", 1_795_965_576.1),
        ("2026-11-29 20:49:36+05:30", 1_795_965_576),
        ("2026-11-29 07:19:36-08", 1_795_965_576),
        ("2026-11-29T15:19:36.123456Z", 1_795_965_576.123456),
        ("1969-12-31 23:59:59.5+00", -0.5),
    ])
    func parsesPostgresTimestamps(text: String, seconds: Double) throws {
        let date = try Date(postgresText: text)
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    /// What PostgreSQL sends comes back to the same microsecond, far from
    /// 1970 too: the postgres-timestamp fuzz target found
    /// 2111-11-29 15:19:36.100 written back as .100001, when both
    /// conversions counted from 1970 and each rounded.
    @Test(arguments: [
        ("2111-11-29 15:19:36.100", "2111-11-29T15:19:36.100000Z"),
        ("2199-12-31 23:59:59.999999+00", "2199-12-31T23:59:59.999999Z"),
        ("1800-01-01 00:00:00.000001+00", "1800-01-01T00:00:00.000001Z"),
        ("2026-11-29 15:19:36.123457", "2026-11-29T15:19:36.123457Z"),
    ])
    func timestampsComeBackToTheMicrosecond(text: String, formatted: String) throws {
        let date = try Date(postgresText: text)
        #expect(date.postgresText == formatted)
        #expect(try Date(postgresText: date.postgresText).postgresText == formatted)
    }

    @Test(arguments: ["", "2026-11-29", "2026-13-01 00:00:00+00", "2026-11-29 15:19:36+0", "2026-11-29 15:19:36 BC", "yesterday"])
    func rejectsMalformedTimestamps(text: String) {
        #expect(throws: PostgresError.self) { try Date(postgresText: text) }
    }

    /// Dates PostgreSQL cannot store (or that would overflow the conversion
    /// to microseconds) are written as the infinities, never trapped on.
    @Test func absurdDatesBecomeInfinities() {
        // (Absurd dates stay out of #expect: Foundation traps printing them.)
        let texts = [1e300, .infinity, 253_402_300_800, -1e300, .nan, -62_135_596_801, -62_135_596_800, 253_402_300_799]
            .map { Date(timeIntervalSince1970: $0).postgresText }
        #expect(
            texts == [
                "infinity", "infinity", "infinity", "-infinity", "-infinity", "-infinity",
                "0001-01-01T00:00:00.000000Z", "9999-12-31T23:59:59.000000Z",
            ])
    }

    @Test func durationsAreMillisecondIntervalsThatSaturate() {
        #expect(Duration.milliseconds(1500).postgresText == "1500 milliseconds")
        #expect(Duration.seconds(Int64.max).postgresText == "9223372036854775807 milliseconds")
        #expect(Duration.zero.postgresText == "0 milliseconds")
    }

    @Test func decodesStandardTypes() throws {
        #expect(try Bool(postgresText: "t") == true)
        #expect(try Bool(postgresText: "f") == false)
        #expect(try Int(postgresText: "-17") == -17)
        #expect(try Double(postgresText: "-Infinity") == -.infinity)
        #expect(try [UInt8](postgresText: "\\x00abff") == [0x00, 0xab, 0xff])
        #expect(try Date(postgresText: "infinity") == .distantFuture)
        let error = try #require(throws: PostgresError.self) { try Int32(postgresText: "99999999999") }
        #expect(error.code == .decoding)
        #expect(throws: PostgresError.self) { try [UInt8](postgresText: "abff") }
    }

    @Test func descriptionCarriesCodeAndSQLStateButNotTheMessage() {
        let error = PostgresError(code: .server, sqlState: "23505", message: "Key (email)=(secret@example.com) already exists.")
        #expect(error.description == "PostgresError.server (SQLSTATE 23505)")
        #expect(!error.description.contains("secret"))
        #expect(error.debugDescription.contains("secret@example.com"))
        #expect(error.isUniqueViolation && !error.isForeignKeyViolation && !error.isSerializationFailure)
        #expect(PostgresError(code: .poolTimeout, message: "x").description == "PostgresError.pool_timeout")
    }
}
