import TidingsObservability

/// Deletes what outlived its retention a batch at a time, so that no one
/// statement holds its locks or writes its WAL for long, until a batch
/// comes back short or the engine stops. Failures are logged and left for
/// the next round.
enum RetentionPruner {
    static let batchSize = 1000

    /// `deleteBatch` deletes up to the given number of rows and returns how
    /// many went; `what` names them in the logs ("events", "pushes").
    static func prune(_ what: String, logger: Logger, isStopping: () -> Bool, deleteBatch: (Int) throws -> Int) {
        do {
            var pruned = 0
            while true {
                let batch = try deleteBatch(batchSize)
                pruned += batch
                if batch < batchSize || isStopping() { break }
            }
            if pruned > 0 { logger.info("pruned old \(what)", metadata: [what: String(pruned)]) }
        } catch {
            logger.warning("could not prune old \(what)", metadata: ["error": "\(error)"])
        }
    }
}
