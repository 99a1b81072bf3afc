import FoundationEssentials
import TidingsObservability

/// Converts between `Date` and PostgreSQL's timestamp text, by hand: it runs
/// for every timestamp column of every row, and Foundation's ISO 8601 styles
/// stop at milliseconds.
enum PostgresTimestamp {
    private static let microsecondsPerSecond: Int64 = 1_000_000
    private static let secondsPerDay: Int64 = 86_400

    /// "2026-11-29T15:19:36.123456Z"; the distant past and future become
    /// "-infinity" and "infinity", mirroring `parse`, and so does any date
    /// outside years 1-9999 (or NaN), which could not be written otherwise.
    static func format(_ date: Date) -> String {
        String(unsafeUninitializedCapacity: maximumLength) { write(date, into: $0) }
    }

    /// `format`'s UTF-8 appended to `buffer`, with no `String` between.
    static func append(_ date: Date, to buffer: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { scratch in
            buffer.append(contentsOf: scratch.prefix(write(date, into: scratch)))
        }
    }

    /// The longest text `format` writes.
    private static let maximumLength = 27

    /// Writes `format`'s UTF-8 to the start of `output` (at least
    /// `maximumLength` bytes) and returns its length.
    private static func write(_ date: Date, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        if date == .distantFuture || !date.isSupported && date.timeIntervalSince1970 > 0 {
            return output.initialize(fromContentsOf: "infinity".utf8)
        }
        if date == .distantPast || !date.isSupported {
            return output.initialize(fromContentsOf: "-infinity".utf8)
        }
        let microseconds = date.unitsSince1970(perSecond: 1_000_000, rounding: .toNearestOrAwayFromZero)
        let seconds = CivilCalendar.floorDivide(microseconds, microsecondsPerSecond)
        let fraction = microseconds - seconds * microsecondsPerSecond
        let days = CivilCalendar.floorDivide(seconds, secondsPerDay)
        let secondOfDay = seconds - days * secondsPerDay
        let (year, month, day) = CivilCalendar.date(daysSinceEpoch: days)
        var position = 0
        func put(_ value: Int64, digits: Int, then separator: Unicode.Scalar) {
            var value = value
            for offset in stride(from: digits - 1, through: 0, by: -1) {
                output[position + offset] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            output[position + digits] = UInt8(ascii: separator)
            position += digits + 1
        }
        // Years 1-9999 (`isSupported`): every field has a fixed width.
        put(year, digits: 4, then: "-")
        put(month, digits: 2, then: "-")
        put(day, digits: 2, then: "T")
        put(secondOfDay / 3600, digits: 2, then: ":")
        put(secondOfDay % 3600 / 60, digits: 2, then: ":")
        put(secondOfDay % 60, digits: 2, then: ".")
        put(fraction, digits: 6, then: "Z")
        return position
    }

    /// Reads "YYYY-MM-DD HH:MM:SS[.ffffff][+HH[:MM[:SS]]]" (a "T" separator
    /// and "Z" are accepted too); no offset means UTC. "infinity" and
    /// "-infinity" become the distant future and past.
    static func parse(_ text: String) -> Date? {
        switch text {
        case "infinity": return .distantFuture
        case "-infinity": return .distantPast
        default: break
        }
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.number(minDigits: 4, maxDigits: 7), scanner.skip("-"),
            let month = scanner.number(digits: 2), (1...12).contains(month), scanner.skip("-"),
            let day = scanner.number(digits: 2), (1...31).contains(day),
            scanner.skip(" ") || scanner.skip("T"),
            let hour = scanner.number(digits: 2), hour <= 24, scanner.skip(":"),
            let minute = scanner.number(digits: 2), minute < 60, scanner.skip(":"),
            let second = scanner.number(digits: 2), second < 61
        else { return nil }
        var microseconds: Int64 = 0
        if scanner.skip(".") {
            guard let digits = scanner.digits(maxCount: 6), !digits.isEmpty else { return nil }
            microseconds = Int64(digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) })
            for _ in digits.count..<6 { microseconds *= 10 }
            _ = scanner.digits(maxCount: .max)
        }
        guard let offset = scanner.utcOffsetSeconds(), scanner.isAtEnd else { return nil }
        let days = CivilCalendar.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * secondsPerDay + hour * 3600 + minute * 60 + second - offset
        // Counted from 2001, what a Date holds: the whole seconds convert
        // exactly and the sum rounds once, so `format` finds the same
        // microsecond wherever a Double tells microseconds apart (about
        // years 1729-2273). From 1970 it rounded twice.
        return Date(timeIntervalSinceReferenceDate: Double(seconds - Date.secondsFrom1970To2001) + Double(microseconds) / 1_000_000)
    }

    private struct Scanner {
        private let bytes: [UInt8]
        private var position = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        var isAtEnd: Bool {
            position == bytes.count
        }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
            position += 1
            return true
        }

        mutating func digits(maxCount: Int) -> ArraySlice<UInt8>? {
            let start = position
            while position < bytes.count, position - start < maxCount, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                position += 1
            }
            return bytes[start..<position]
        }

        mutating func number(digits count: Int) -> Int64? {
            number(minDigits: count, maxDigits: count)
        }

        mutating func number(minDigits: Int, maxDigits: Int) -> Int64? {
            guard let digits = digits(maxCount: maxDigits), digits.count >= minDigits else { return nil }
            return digits.reduce(0) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        }

        /// "+HH", "+HH:MM", "+HH:MM:SS", "-..." or "Z"; nothing means UTC.
        mutating func utcOffsetSeconds() -> Int64? {
            if isAtEnd || skip("Z") { return 0 }
            let sign: Int64
            if skip("+") {
                sign = 1
            } else if skip("-") {
                sign = -1
            } else {
                return nil
            }
            guard let hours = number(digits: 2) else { return nil }
            var seconds = hours * 3600
            if skip(":") {
                guard let minutes = number(digits: 2) else { return nil }
                seconds += minutes * 60
                if skip(":") {
                    guard let extra = number(digits: 2) else { return nil }
                    seconds += extra
                }
            }
            return sign * seconds
        }
    }
}
