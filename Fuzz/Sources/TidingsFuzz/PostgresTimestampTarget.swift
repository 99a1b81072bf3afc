import FoundationEssentials
@testable import TidingsPostgres

/// Timestamp text in rows from PostgreSQL, and dates formatted as query
/// parameters. Any text parses or gives nil; a parsed date formats to text
/// that parses back, to the same text where a `Date` (a Double of seconds
/// since 2001) tells microseconds apart; a date anywhere in PostgreSQL's
/// range (built from the input) formats and parses back.
enum PostgresTimestampTarget {
    /// Years 1800-2200, inside the about 272 years either side of 2001
    /// where a Double of seconds has steps under a microsecond.
    private static let microsecondExact = -6_342_969_600.0 ..< 6_279_811_200.0

    static func run(_ input: FuzzInput) {
        let text = input.string
        if let date = PostgresTimestamp.parse(text) {
            let formatted = PostgresTimestamp.format(date)
            let again = PostgresTimestamp.parse(formatted)
            check(again != nil, "\(text.debugDescription) -> \(formatted.debugDescription), which does not parse")
            if let again, microsecondExact.contains(date.timeIntervalSinceReferenceDate) {
                check(PostgresTimestamp.format(again) == formatted, "\(formatted) -> \(PostgresTimestamp.format(again))")
            }
        }

        // Microseconds from year 1 to about year 7900 (the parser reads
        // no era, and nothing Tidings stores is older).
        let microseconds = Int64(input.int64Prefix.magnitude % 250_000_000_000_000_000) - 62_135_596_800_000_000
        let date = Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
        let formatted = PostgresTimestamp.format(date)
        check(PostgresTimestamp.parse(formatted) != nil, "\(formatted) does not parse")

        // Any Double as a date (a Date can hold one).
        _ = PostgresTimestamp.format(Date(timeIntervalSince1970: Double(bitPattern: UInt64(bitPattern: input.int64Prefix))))
    }
}
