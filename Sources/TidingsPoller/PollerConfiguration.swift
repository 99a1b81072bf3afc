package import TidingsExtraction

/// How the poller schedules, how polite it is, and when a watch fails.
package struct PollerConfiguration: Sendable {
    /// Checks in flight at once (`TIDINGS_POLL_CONCURRENCY`); 0 turns the
    /// background scheduler off (checks asked for through the API still run).
    package var concurrency = 256
    /// Checks in flight at once charged to one user
    /// (`TIDINGS_USER_POLL_CONCURRENCY`), so that one tenant's slow origins
    /// cannot hold every slot: past it, targets only that user watches are
    /// not claimed until one of its checks ends.
    package var userConcurrency = 192
    /// Requests in flight per host (`TIDINGS_HOST_CONCURRENCY`), for all
    /// live pollers together (`HostLimiter.share(among:)`).
    package var hostConcurrency = 2
    /// Time between the starts of two requests to one host (`TIDINGS_HOST_MIN_GAP`).
    package var hostMinimumGap: Duration = .zero
    /// Every Nth check of a target ignores its validators (`TIDINGS_UNCONDITIONAL_EVERY`).
    package var unconditionalEvery = 24
    /// Consecutive failed checks before a watch is `failing` (`TIDINGS_FAILURE_THRESHOLD`).
    package var failureThreshold = 3
    /// Longest delay error back-off and Retry-After can push a check (`TIDINGS_MAX_INTERVAL`).
    package var maximumBackoff: Duration = .seconds(86_400)
    /// Longest a Retry-After holds the host that sent it
    /// (`TIDINGS_MAX_RETRY_AFTER`): the answer may come from a tenant's own
    /// server, or from a limit one tenant tripped for everyone.
    package var maximumRetryAfter: Duration = .seconds(3600)
    /// How long a claimed target stays this poller's: longer than a check
    /// can take, so only a crashed replica's leases expire.
    package var lease: Duration = .seconds(120)
    /// How often the scheduler looks for due targets when none was due.
    package var idlePollInterval: Duration = .milliseconds(200)
    /// Most targets claimed by one query.
    package var claimBatchSize = 500
    /// Results wait at most this long to be written together.
    package var writeBatchDelay: Duration = .milliseconds(20)
    /// Most results written by one batch (two transactions).
    package var writeBatchSize = 500
    /// Writer threads, each committing its own batches on its own pooled
    /// connection, so writes pipeline instead of queueing behind one commit.
    package var writerCount = 3
    /// Results checked but not yet written beyond which no more targets are
    /// claimed (a check frees its slot once its result is queued).
    package var writeBacklogLimit = 4000
    /// Bytes of extracted content in results not yet written beyond which
    /// no more targets are claimed (`ContentBacklog`): what bounds memory
    /// while a first round takes its baselines.
    package var writeBacklogBytes = 16 << 20
    /// Most bytes of extracted content one eventful transaction writes; a
    /// batch with more is written in several.
    package var eventfulTransactionBytes = 1 << 20
    /// Largest snapshot of extracted text stored with a change.
    package var snapshotByteLimit = 16 << 10
    /// Largest diff stored with a change and sent in `watch.changed`.
    package var diffByteLimit = 4 << 10
    /// Fraction of the interval by which the next check is moved earlier at
    /// random, so targets that started together drift apart.
    package var scheduleJitter = 0.1
    /// Threads that run extraction (`TIDINGS_EXTRACTION_THREADS`), off the
    /// cooperative pool so a slow rule delays no other task.
    package var extractionThreads = 2
    /// What one extraction may cost before its check fails.
    package var extractionLimits = ExtractionLimits.default
    /// How long `checkNow` waits for its check (`TIDINGS_CHECK_NOW_TIMEOUT`);
    /// the check goes on past it and is written like a scheduled one.
    package var checkNowTimeout: Duration = .seconds(20)

    package init() {}
}
