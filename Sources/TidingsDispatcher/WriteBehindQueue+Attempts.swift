import TidingsObservability
import TidingsPostgres
import TidingsSynchronization

extension WriteBehindQueue {
    /// The queue a dispatcher records its finished attempts (webhook
    /// deliveries, pushes) through: one thread and connection of its own,
    /// each batch what finished while the previous one was written, so
    /// claiming never waits behind writing. Attempts it drops are logged:
    /// their leases run out and they are sent again (at least once).
    static func attempts(
        what: String,
        threadName: String,
        logger: Logger,
        record: @escaping @Sendable ([Item]) throws -> Void
    ) -> WriteBehindQueue {
        WriteBehindQueue(Configuration(name: threadName)) { batch in
            .recording { try record(batch) }
        } onDrop: { count, cause in
            let metadata: [String: String] = ["count": String(count), "error": cause.errorDescription]
            if case .unreachable = cause {
                logger.warning("could not record the last \(what); they will be sent again", metadata: metadata)
            } else {
                logger.error("could not record \(what); they will be sent again", metadata: metadata)
            }
        }
    }
}

extension WriteBehindVerdict {
    fileprivate var errorDescription: String {
        switch self {
        case .written: ""
        case .lostRace(let error), .refused(let error), .unreachable(let error): String(describing: error)
        }
    }
}
