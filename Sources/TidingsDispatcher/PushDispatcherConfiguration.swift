import FoundationEssentials
package import TidingsPush

/// How the push dispatcher sends, retries and gives up.
package struct PushDispatcherConfiguration: Sendable {
    /// Endpoints (`TIDINGS_APNS_URL`, `TIDINGS_FCM_URL`), the extra CA
    /// (`TIDINGS_PUSH_CA_FILE`), timeouts and streams per connection.
    package var transport = PushTransportConfiguration()
    /// Delay before each attempt after the first; its length is the number
    /// of retries (`TIDINGS_PUSH_RETRY_SCHEDULE`). A push service's
    /// `Retry-After` is honoured up to the longest step.
    package var retrySchedule: [Duration] = [.seconds(1), .seconds(5), .seconds(30), .seconds(120), .seconds(600), .seconds(1800)]
    /// Pushes in flight in this process, over all push apps.
    package var maxInFlight = 2048
    /// Pushes leased per claim statement.
    package var claimBatchSize = 512
    /// The longest the dispatcher sleeps without looking at the table.
    package var pollInterval: Duration = .seconds(1)
    /// A lease outlives the attempt's timeout by this much.
    package var leaseMargin: Duration = .seconds(5)
    /// Finished pushes older than this leave the push log
    /// (`TIDINGS_EVENT_RETENTION`, at least the sync budget's period, which
    /// counts the sync pushes sent within it).
    package var logRetention: Duration = .seconds(30 * 86_400)
    /// How often the push log is pruned.
    package var pruneInterval: Duration = .seconds(600)
    /// Threads encrypting Web Push messages: one per core.
    package var webPushThreads = max(ProcessInfo.processInfo.activeProcessorCount, 1)
    /// How long shutdown waits for pushes in flight before releasing them.
    package var shutdownGracePeriod: Duration = .seconds(5)

    package init() {}

    /// A push may need two requests (a refreshed credential and the push
    /// again) and, for FCM, the token endpoint before them.
    var attemptTimeout: Duration {
        transport.timeout * 3
    }

    var leaseDuration: Duration {
        attemptTimeout + leaseMargin
    }

    /// The longest a push this process started may still run once it may
    /// start nothing more (its heartbeat is stale).
    var inFlightGrace: Duration {
        attemptTimeout + .seconds(2)
    }
}
