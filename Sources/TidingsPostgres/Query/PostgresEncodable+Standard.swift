package import FoundationEssentials
import TidingsCrypto
import TidingsSynchronization

extension String: PostgresEncodable {
    package var postgresText: String {
        self
    }
}

extension Int: PostgresEncodable {
    package var postgresText: String {
        String(self)
    }
}

extension Int32: PostgresEncodable {
    package var postgresText: String {
        String(self)
    }
}

extension Int64: PostgresEncodable {
    package var postgresText: String {
        String(self)
    }
}

extension Double: PostgresEncodable {
    /// Swift's shortest round-tripping form, with PostgreSQL's spellings of
    /// the special values.
    package var postgresText: String {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return String(self)
    }
}

extension Bool: PostgresEncodable {
    package var postgresText: String {
        self ? "t" : "f"
    }
}

extension UUID: PostgresEncodable {
    package var postgresText: String {
        uuidString.lowercased()
    }
}

extension Duration: PostgresEncodable {
    /// An `interval` in whole milliseconds (saturating), bound as
    /// `\(duration)::interval`.
    package var postgresText: String {
        "\(inMilliseconds) milliseconds"
    }
}

extension Date: PostgresEncodable {
    /// ISO 8601 in UTC with microseconds, PostgreSQL's `timestamptz` precision.
    package var postgresText: String {
        PostgresTimestamp.format(self)
    }
}

extension Array: PostgresEncodable where Element == UInt8 {
    /// `bytea` in hex format.
    package var postgresText: String {
        "\\x" + Hex.encode(self)
    }
}
