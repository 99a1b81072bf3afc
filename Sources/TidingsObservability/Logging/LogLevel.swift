/// Severity of a log line, ordered from the most verbose to the most severe.
package enum LogLevel: String, Sendable, CaseIterable, Comparable {
    case trace
    case debug
    case info
    case notice
    case warning
    case error
    case critical

    private var rank: Int {
        switch self {
        case .trace: 0
        case .debug: 1
        case .info: 2
        case .notice: 3
        case .warning: 4
        case .error: 5
        case .critical: 6
        }
    }

    package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.rank < rhs.rank
    }
}
