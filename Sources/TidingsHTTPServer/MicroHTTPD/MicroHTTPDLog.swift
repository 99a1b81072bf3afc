import TidingsObservability
import TidingsSynchronization

/// Receives libmicrohttpd's own messages: logs them and remembers the last
/// one, which explains a failed start (for example a port already in use).
final class MicroHTTPDLog: Sendable {
    private let logger: Logger
    private let lastMessage = AdaptiveMutex<String?>(nil)

    init(logger: Logger) {
        self.logger = logger
    }

    var latestMessage: String? {
        lastMessage.withLock { $0 }
    }

    func record(_ message: String) {
        let trimmed = String(message.reversed().drop(while: \.isNewline).reversed())
        lastMessage.withLock { $0 = trimmed }
        logger.warning("libmicrohttpd: \(trimmed)")
    }
}
