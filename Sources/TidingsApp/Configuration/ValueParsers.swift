import TidingsHTTPServer
import TidingsIP

/// Parsers for the value syntaxes used in environment variables. Every
/// value has an explicit upper bound, so no setting, however absurd, can
/// overflow the arithmetic done with it later (docs/LIMITS.md).
enum ValueParsers {
    /// The longest duration any variable accepts: ten years.
    static let longestDuration: Duration = .seconds(10 * 365 * 86_400)
    /// The largest byte count any variable accepts: 1 GiB, more than any
    /// one body held in memory should be.
    static let largestByteCount = 1 << 30
    /// The largest count any variable accepts (connections, threads, checks).
    static let largestCount = 1_000_000

    /// `500ms`, `15s`, `5m`, `2h`, `1d`, or a sum of them (`1h30m`), at most
    /// `longestDuration`. A bare number is rejected: the unit is part of the
    /// contract.
    static func duration(_ text: String) -> Duration? {
        // "ms" comes before "m" so that the longest unit wins.
        let units: [(suffix: String, length: Duration)] = [
            ("ms", .milliseconds(1)), ("s", .seconds(1)), ("m", .seconds(60)),
            ("h", .seconds(3600)), ("d", .seconds(86_400)),
        ]
        var remaining = Substring(text.trimmingWhitespace())
        guard !remaining.isEmpty else { return nil }
        var total = Duration.zero
        while !remaining.isEmpty {
            let digits = remaining.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let amount = Int(digits), amount <= 1_000_000_000 else { return nil }
            remaining = remaining.dropFirst(digits.count)
            guard let unit = units.first(where: { remaining.hasPrefix($0.suffix) }) else { return nil }
            remaining = remaining.dropFirst(unit.suffix.count)
            total += unit.length * amount
            guard total <= longestDuration else { return nil }
        }
        return total
    }

    /// A byte count: `1048576`, `512KiB`, `1MiB`, `5MiB`, `1GiB` (also `KB`,
    /// `MB`, `GB` as powers of 1024, which is what operators mean here).
    static func byteCount(_ text: String) -> Int? {
        let trimmed = text.trimmingWhitespace()
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let amount = Int(digits) else { return nil }
        let multiplier: Int
        switch trimmed.dropFirst(digits.count).lowercased() {
        case "", "b": multiplier = 1
        case "k", "kb", "kib": multiplier = 1 << 10
        case "m", "mb", "mib": multiplier = 1 << 20
        case "g", "gb", "gib": multiplier = 1 << 30
        default: return nil
        }
        let (product, overflow) = amount.multipliedReportingOverflow(by: multiplier)
        return overflow || product > largestByteCount ? nil : product
    }

    static func bool(_ text: String) -> Bool? {
        switch text.trimmingWhitespace().lowercased() {
        case "true", "1", "yes", "on": true
        case "false", "0", "no", "off": false
        default: nil
        }
    }

    /// `host:port`, `[v6]:port` or `:port` (all interfaces is spelled
    /// `0.0.0.0:port` explicitly; `:port` means 127.0.0.1).
    static func listenAddress(_ text: String) -> (host: String, port: Int)? {
        let trimmed = text.trimmingWhitespace()
        let host: String
        let portText: Substring
        if trimmed.hasPrefix("[") {
            guard let close = trimmed.firstIndex(of: "]") else { return nil }
            host = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
            let rest = trimmed[trimmed.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else {
            guard let colon = trimmed.lastIndex(of: ":") else { return nil }
            host = String(trimmed[..<colon])
            portText = trimmed[trimmed.index(after: colon)...]
        }
        guard let port = Int(portText), (0...65_535).contains(port) else { return nil }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    /// `0s,5s,5m,30m`: one to 50 durations, zero allowed.
    static func durationList(_ text: String) -> [Duration]? {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { duration(String($0)) }
        guard (1...50).contains(items.count), !items.contains(where: { $0 == nil }) else { return nil }
        return items.compactMap { $0 }
    }

    /// `0`: a thread per connection; `N` > 0: an epoll pool of N threads.
    static func httpThreading(_ text: String) -> HTTPServerThreading? {
        guard let threads = count(text), threads <= 1024 else { return nil }
        return threads == 0 ? .threadPerConnection : .pool(threads: threads)
    }

    /// `0`: handlers on the polling threads; `N` > 0: a handler pool of N.
    static func httpHandlerThreads(_ text: String) -> Int? {
        guard let threads = count(text), threads <= 1024 else { return nil }
        return threads
    }

    /// `10.0.0.0/8, 192.0.2.7, fd00::/8`: one to 100 addresses or CIDR
    /// networks without host bits below the prefix.
    static func networkList(_ text: String) -> [IPNetwork]? {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map {
            IPNetwork(String($0).trimmingWhitespace())
        }
        guard (1...100).contains(items.count), !items.contains(where: { $0 == nil }) else { return nil }
        return items.compactMap { $0 }
    }

    /// `30/1m`: a `RatePolicy` of 1 to `largestCount` requests per a
    /// positive `duration`.
    static func rate(_ text: String) -> RatePolicy? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = positiveInteger(String(parts[0])),
            let period = duration(String(parts[1])), period > .zero
        else { return nil }
        return RatePolicy(count: count, per: period)
    }

    /// 1 to `largestCount`.
    static func positiveInteger(_ text: String) -> Int? {
        guard let value = count(text), value > 0 else { return nil }
        return value
    }

    /// 0 to `largestCount`.
    static func count(_ text: String) -> Int? {
        guard let value = Int(text.trimmingWhitespace()), (0...largestCount).contains(value) else { return nil }
        return value
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var view = Substring(self)
        while let first = view.first, first.isWhitespace { view.removeFirst() }
        while let last = view.last, last.isWhitespace { view.removeLast() }
        return String(view)
    }
}
