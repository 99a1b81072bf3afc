import FoundationEssentials
import TidingsCrypto
import TidingsSynchronization

extension String: PostgresEncodable {
    public var postgresText: String {
        self
    }
}

extension Int: PostgresEncodable {
    public var postgresText: String {
        String(self)
    }
}

extension Int32: PostgresEncodable {
    public var postgresText: String {
        String(self)
    }
}

extension Int64: PostgresEncodable {
    public var postgresText: String {
        String(self)
    }
}

extension Double: PostgresEncodable {
    /// Swift's shortest round-tripping form, with PostgreSQL's spellings of
    /// the special values.
    public var postgresText: String {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return String(self)
    }
}

extension Bool: PostgresEncodable {
    public var postgresText: String {
        self ? "t" : "f"
    }
}

extension UUID: PostgresEncodable {
    public var postgresText: String {
        uuidString.lowercased()
    }
}

extension Duration: PostgresEncodable {
    /// An `interval` in whole milliseconds (saturating), bound as
    /// `\(duration)::interval`.
    public var postgresText: String {
        "\(inMilliseconds) milliseconds"
    }
}

extension Date: PostgresEncodable {
    /// ISO 8601 in UTC with microseconds, PostgreSQL's `timestamptz` precision.
    public var postgresText: String {
        PostgresTimestamp.format(self)
    }
}

extension Array: PostgresEncodable where Element == UInt8 {
    /// `bytea` in hex format.
    public var postgresText: String {
        "\\x" + Hex.encode(self)
    }
}
