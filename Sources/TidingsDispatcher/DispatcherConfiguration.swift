/// How the webhook dispatcher sends, retries and gives up.
package struct DispatcherConfiguration: Sendable {
    /// Total time for one attempt (`TIDINGS_WEBHOOK_TIMEOUT`).
    package var timeout: Duration = .seconds(15)
    /// Delay before each attempt, the first one included (it is normally
    /// 0s: new deliveries are due at once); its length is the number of
    /// attempts (`TIDINGS_WEBHOOK_RETRY_SCHEDULE`).
    package var retrySchedule: [Duration] = RetryPolicy.defaultSchedule
    /// A webhook failing without a success this long is disabled (`TIDINGS_WEBHOOK_DISABLE_AFTER`).
    package var disableAfter: Duration = .seconds(5 * 86_400)
    /// Live leases per webhook across all dispatchers (`TIDINGS_WEBHOOK_CONCURRENCY`).
    package var perWebhookConcurrency = 4
    /// Requests in flight to one receiver host, across all webhooks pointed
    /// at it (`TIDINGS_WEBHOOK_HOST_CONCURRENCY`), for all live dispatchers
    /// together (`DeliverySlots.shareHostCap`).
    package var perHostConcurrency = 256
    /// Leases per webhook this process may hold beyond the cap while no
    /// other dispatcher holds one: queued here and sent the moment one of
    /// the webhook's requests finishes, instead of after a database turn.
    /// A deep queue lets each claim lease a large batch, which is what
    /// makes claiming cheap per delivery; it costs a longer lease on the
    /// queued deliveries (see `queuedLeaseDuration`). Nil means eight times
    /// the cap; 0 turns queueing off.
    package var perWebhookPrefetch: Int?
    /// Requests in flight in this process.
    package var maxInFlight = 512
    /// Requests in flight in this process for one user's webhooks
    /// together (`TIDINGS_USER_WEBHOOK_CONCURRENCY`); nil means 3/4 of
    /// `maxInFlight`, so other users always find room.
    package var perUserConcurrency: Int?
    /// Deliveries leased per claim statement.
    package var claimBatchSize = 256
    /// Event payloads older than this are deleted (`TIDINGS_EVENT_RETENTION`).
    package var eventRetention: Duration = .seconds(30 * 86_400)
    /// How often retention pruning runs.
    package var pruneInterval: Duration = .seconds(600)
    /// The longest the dispatcher sleeps without looking at the table:
    /// polling is the source of truth, NOTIFY only makes it sooner.
    package var pollInterval: Duration = .seconds(1)
    /// A lease outlives the attempt's timeout by this much, so a slow but
    /// finished attempt is still written back before anyone else may claim it.
    package var leaseMargin: Duration = .seconds(5)
    /// How long shutdown waits for attempts in flight before releasing their leases.
    package var shutdownGracePeriod: Duration = .seconds(5)
    package var allowPrivateTargets = false
    package var connectTimeout: Duration = .seconds(10)
    package var userAgent = "Tidings-Webhooks"

    package init() {}

    var leaseDuration: Duration {
        timeout + leaseMargin
    }

    /// The longest a request this process started may still run once it
    /// may start nothing more (its heartbeat is stale): the attempt's
    /// timeout and a little slack for starting it. Others free a dead
    /// dispatcher's leases only after that.
    var inFlightGrace: Duration {
        timeout + .seconds(2)
    }

    var userConcurrency: Int {
        min(max(perUserConcurrency ?? maxInFlight * 3 / 4, 1), maxInFlight)
    }

    /// Deliveries this process may hold queued behind requests in flight.
    /// Past it, claims take only what can start at once: hanging receivers
    /// of many webhooks cannot pile up leases in memory, nor stop the
    /// claims that find other users' deliveries.
    var maxQueued: Int {
        maxInFlight * 8
    }

    var prefetch: Int {
        max(perWebhookPrefetch ?? perWebhookConcurrency * 8, 0)
    }

    /// A queued delivery starts once the requests ahead of it have
    /// finished, `perWebhookConcurrency` at a time, each within the
    /// timeout: with a queue eight times the cap, within eight timeouts of
    /// the claim. It then needs a whole lease.
    var queuedLeaseDuration: Duration {
        let waits = (prefetch + perWebhookConcurrency - 1) / max(perWebhookConcurrency, 1)
        return leaseDuration + timeout * waits
    }
}
