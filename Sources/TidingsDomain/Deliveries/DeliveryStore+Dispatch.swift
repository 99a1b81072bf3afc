package import FoundationEssentials
import TidingsPostgres
import TidingsSynchronization

/// The dispatcher's side of the deliveries table: claiming due deliveries
/// under a lease, writing attempts back in batches, webhook health, lease
/// release on shutdown and retention pruning.
extension DeliveryStore {
    /// Why the dispatcher disables a webhook.
    package static let goneReason = "the receiver answered 410 Gone"

    /// What a dispatcher asks for when it claims: up to `limit` due
    /// deliveries leased to `owner`. At most `perWebhookLimit` leases per
    /// webhook are live at once across all dispatchers, with one exception:
    /// while no other dispatcher holds a live lease of a webhook, `owner`
    /// may hold `perWebhookPrefetch` more, which it queues and sends only as
    /// its own requests of that webhook finish, so the cap on requests in
    /// flight holds across replicas. Those within the cap are leased for
    /// `leaseDuration`, queued ones for `queuedLeaseDuration`. Webhooks in
    /// `skipping` (the caller's full ones) and the webhooks of the users in
    /// `skippingUsers` (at their share of the caller's requests) are not
    /// even looked at. Deliveries of disabled webhooks wait. The claim reads
    /// at most `examine` due rows in due order; with `sweep` it also takes
    /// each other webhook's first due rows, which finds what waits behind a
    /// skipped webhook's longer backlog.
    ///
    /// `ownLeases`, when given, is what `owner` itself holds per webhook for
    /// requests in flight or queued; it replaces `owner`'s leases in the
    /// table, which also count attempts that finished but are not written
    /// yet. Without it a dispatcher whose writer lags behind under load
    /// would count those as busy and send fewer than the cap allows.
    package struct ClaimRequest: Sendable {
        package var owner: String
        package var limit: Int
        package var perWebhookLimit: Int
        package var perWebhookPrefetch: Int
        package var leaseDuration: Duration
        package var queuedLeaseDuration: Duration
        package var skipping: [UUID]
        package var skippingUsers: [UUID]
        /// Due rows the claim reads in due order, at most.
        package var examine: Int
        /// Also looks at each webhook that is not skipped on its own, for
        /// what lies past the first `examine` due rows.
        package var sweep: Bool
        package var ownLeases: [UUID: Int]?

        package init(
            owner: String, limit: Int, perWebhookLimit: Int, perWebhookPrefetch: Int = 0,
            leaseDuration: Duration, queuedLeaseDuration: Duration? = nil, skipping: [UUID],
            skippingUsers: [UUID], examine: Int, sweep: Bool, ownLeases: [UUID: Int]? = nil
        ) {
            self.owner = owner
            self.limit = limit
            self.perWebhookLimit = perWebhookLimit
            self.perWebhookPrefetch = perWebhookPrefetch
            self.leaseDuration = leaseDuration
            self.queuedLeaseDuration = queuedLeaseDuration ?? leaseDuration
            self.skipping = skipping
            self.skippingUsers = skippingUsers
            self.examine = examine
            self.sweep = sweep
            self.ownLeases = ownLeases
        }
    }

    /// Writes a batch of finished attempts in one transaction: the attempt
    /// rows, each delivery's new state while `owner` still holds its lease,
    /// each webhook's `failing_since`; disables webhooks that answered 410
    /// or have failed for `disableAfter` (with a `webhook.disabled` event
    /// for the owner's other webhooks, and failing what the disabled one
    /// still had pending). Returns the webhooks it disabled.
    package func complete(_ attempts: [CompletedAttempt], owner: String, disableAfter: Duration) throws -> [DisabledWebhook] {
        guard !attempts.isEmpty else { return [] }
        return try database.withTransaction { connection in
            try Self.recordAttempts(attempts, owner: owner, on: connection)
            // Only a failure can disable a webhook.
            guard attempts.contains(where: { $0.outcome != .succeeded }) else { return [] }
            return try Self.disableBroken(attempts, disableAfter: disableAfter, on: connection)
        }
    }

    /// Leases due deliveries as `request` asks, in a transaction of its own,
    /// which commits without waiting for its WAL to reach disk (decision
    /// 0032): a lease lost in a PostgreSQL crash can at worst send a
    /// delivery again, as an expired one does.
    package func claim(_ request: ClaimRequest) throws -> [ClaimedDelivery] {
        guard request.limit > 0 else { return [] }
        return try database.withTransaction { connection in
            try Self.claim(request, on: connection)
        }
    }

    /// Claims take turns across dispatchers (a transaction-scoped advisory
    /// lock; the two-key form, apart from the migrations' one-key lock), so
    /// each counts the leases of the others as committed: two claims at
    /// the same instant cannot both see a webhook free and together exceed
    /// its cap.
    static let claimLockKeys: (Int32, Int32) = (0x7469_6469, 0x636C_6169)

    /// The rows to take are chosen first without locks (due order, the cap
    /// per webhook counting live leases); only those are then locked with
    /// SKIP LOCKED and re-checked, so concurrent dispatchers never take the
    /// same delivery and a claim locks no row it will not lease. The event
    /// is read here, after any supersede.
    private static func claim(_ request: ClaimRequest, on connection: PostgresConnection) throws -> [ClaimedDelivery] {
        try connection.execute(
            """
            SELECT pg_advisory_xact_lock(\(claimLockKeys.0), \(claimLockKeys.1)),
                   set_config('synchronous_commit', 'off', true)
            """)
        let ownWebhooks = Array((request.ownLeases ?? [:]).keys)
        let rows = try connection.query(
            """
            WITH candidates AS (
                SELECT c.id, c.webhook_id, c.next_attempt_at FROM (
                    (SELECT d.id, d.webhook_id, d.next_attempt_at
                    FROM (
                        -- The first due rows, at most `examine` of them: the
                        -- backlog of a skipped webhook is not read to its end.
                        SELECT id, webhook_id, next_attempt_at, lease_until FROM deliveries
                        WHERE status = 'pending' AND next_attempt_at <= now()
                        ORDER BY next_attempt_at, id
                        LIMIT \(request.examine)
                    ) d
                    WHERE (d.lease_until IS NULL OR d.lease_until < now())
                        AND d.webhook_id <> ALL (\(PostgresArray(request.skipping))::uuid[])
                        -- An array computed once: a join here would make the planner
                        -- read every due delivery instead of the first ones in order.
                        AND d.webhook_id <> ALL (ARRAY(
                            SELECT id FROM webhooks
                            WHERE disabled_at IS NOT NULL OR user_id = ANY (\(PostgresArray(request.skippingUsers))::uuid[])
                        ))
                    -- In index order already: the scan stops at the limit.
                    ORDER BY d.next_attempt_at, d.id
                    LIMIT \(request.limit))
                    UNION
                    -- The sweep: each webhook that is not skipped, its first due
                    -- rows through deliveries_webhook_due_idx, so deliveries
                    -- behind a skipped backlog longer than `examine` are found.
                    SELECT o.id, o.webhook_id, o.next_attempt_at
                    FROM webhooks w CROSS JOIN LATERAL (
                        SELECT s.id, s.webhook_id, s.next_attempt_at FROM deliveries s
                        WHERE s.webhook_id = w.id AND s.status = 'pending' AND s.next_attempt_at <= now()
                            AND (s.lease_until IS NULL OR s.lease_until < now())
                        ORDER BY s.next_attempt_at, s.id
                        LIMIT \(request.perWebhookLimit + request.perWebhookPrefetch)
                    ) o
                    WHERE \(request.sweep) AND w.disabled_at IS NULL
                        AND w.id <> ALL (\(PostgresArray(request.skipping))::uuid[])
                        AND (w.user_id IS NULL OR w.user_id <> ALL (\(PostgresArray(request.skippingUsers))::uuid[]))
                ) c
                ORDER BY c.next_attempt_at, c.id
                LIMIT \(request.limit)
            ), held AS MATERIALIZED (
                -- One lookup of the lease index per webhook, computed once
                -- (inlined, the generic plan repeated it per candidate); a
                -- join let the planner, before statistics caught up with a
                -- burst, scan every delivery on each claim instead.
                SELECT c.webhook_id,
                       CASE WHEN \(request.ownLeases != nil) THEN h.others + coalesce(own.leases, 0) ELSE h.leases END AS leases,
                       h.others
                FROM (SELECT DISTINCT webhook_id FROM candidates) c
                CROSS JOIN LATERAL (
                    SELECT count(*) AS leases, count(*) FILTER (WHERE l.lease_owner <> \(request.owner)) AS others
                    FROM deliveries l
                    WHERE l.webhook_id = c.webhook_id AND l.lease_owner IS NOT NULL AND l.lease_until >= now()
                ) h
                LEFT JOIN unnest(
                    \(PostgresArray(ownWebhooks))::uuid[],
                    \(PostgresArray(ownWebhooks.map { String(request.ownLeases?[$0] ?? 0) }))::integer[]
                ) AS own(webhook_id, leases) ON own.webhook_id = c.webhook_id
            ), chosen AS (
                SELECT ranked.id, ranked.next_attempt_at,
                       ranked.rank + coalesce(held.leases, 0) > \(request.perWebhookLimit) AS queued
                FROM (
                    SELECT c.id, c.webhook_id, c.next_attempt_at,
                           row_number() OVER (PARTITION BY c.webhook_id ORDER BY c.next_attempt_at, c.id) AS rank
                    FROM candidates c
                ) ranked
                LEFT JOIN held ON held.webhook_id = ranked.webhook_id
                WHERE ranked.rank + coalesce(held.leases, 0) <= \(request.perWebhookLimit)
                    + CASE WHEN coalesce(held.others, 0) = 0 THEN \(request.perWebhookPrefetch) ELSE 0 END
                ORDER BY ranked.next_attempt_at
                LIMIT \(request.limit)
            )
            UPDATE deliveries d
            SET lease_owner = \(request.owner),
                lease_until = now() + CASE WHEN locked.queued
                    THEN \(request.queuedLeaseDuration)::interval
                    ELSE \(request.leaseDuration)::interval END,
                updated_at = now()
            FROM (
                    SELECT l.id, chosen.queued
                    FROM chosen JOIN deliveries l ON l.id = chosen.id
                    WHERE l.status = 'pending' AND (l.lease_until IS NULL OR l.lease_until < now())
                    LIMIT \(request.limit)
                    FOR UPDATE OF l SKIP LOCKED
                ) locked, events e, webhooks w
            WHERE d.id = locked.id AND e.id = d.event_id AND w.id = d.webhook_id
            RETURNING d.id, d.webhook_id, w.user_id, d.event_id, d.attempt_count, e.type, e.data::text AS data,
                      iso8601(e.created_at) AS event_timestamp, w.url, w.secret,
                      CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret,
                      locked.queued
            """)
        return try rows.map { row in
            var secrets = [try row.decode("secret", as: String.self)]
            if let previous = try row.decode("previous_secret", as: String?.self) { secrets.append(previous) }
            return ClaimedDelivery(
                id: try row.decode("id"),
                webhookID: try row.decode("webhook_id"),
                userID: try row.decode("user_id"),
                eventID: try row.decode("event_id"),
                eventType: try row.decode("type"),
                eventData: try row.decode("data"),
                eventTimestamp: try row.decode("event_timestamp"),
                url: try row.decode("url"),
                secrets: secrets,
                attemptCount: try row.decode("attempt_count"),
                leaseDuration: try row.decode("queued", as: Bool.self) ? request.queuedLeaseDuration : request.leaseDuration
            )
        }
    }

    /// Time until the next pending delivery that is not due yet becomes
    /// due (a coalesced badge event, a retry), or nil when none waits.
    /// Deliveries due already are the claim's: those it left wait for a
    /// webhook's requests in flight, whose ends wake the dispatcher.
    package func timeUntilNextDue() throws -> Duration? {
        let row = try database.query(
            """
            SELECT extract(epoch FROM min(next_attempt_at) - now())::float8 AS seconds
            FROM deliveries WHERE status = 'pending' AND next_attempt_at > now()
            """
        ).single()
        return try row.decode("seconds", as: Double?.self).map { Duration.seconds(clamping: $0) }
    }

    /// A webhook the dispatcher disabled in `complete`.
    package struct DisabledWebhook: Sendable, Equatable {
        package let id: UUID
        package let reason: String
    }

    /// Gives up `owner`'s leases (on shutdown) so another dispatcher can
    /// send them at once; nothing counts as an attempt.
    @discardableResult
    package func releaseLeases(owner: String) throws -> Int {
        try database.withConnection { connection in
            try Self.releaseLeases(of: [owner], on: connection)
        }
    }

    /// Frees the deliveries leased by `owners` (this process, or dead ones
    /// the heartbeat reaped) and wakes the dispatchers when any were freed.
    /// `lease_owner IS NOT NULL` lets the small partial lease index
    /// (`deliveries_leased_idx`) find the leased rows.
    static func releaseLeases(of owners: [String], on connection: PostgresConnection) throws -> Int {
        let released = try connection.execute(
            """
            UPDATE deliveries SET lease_owner = NULL, lease_until = NULL, updated_at = now()
            WHERE lease_owner IS NOT NULL AND lease_owner = ANY(\(PostgresArray(owners))::text[])
            """)
        if released > 0 { try notifyDispatchers(on: connection) }
        return released
    }

    /// Deletes up to `batchSize` events older than `retention` (their
    /// deliveries and attempts cascade), never one with a pending delivery,
    /// and raises each user's `trimmed_through` to the highest position
    /// deleted, in the same transaction: a stream or feed cursor below it
    /// answers "resync" instead of skipping what went. Badges are locked in
    /// user order, as every writer locks them. Returns how many went.
    package func pruneEvents(olderThan retention: Duration, batchSize: Int = 1000) throws -> Int {
        try database.withRetryingTransaction { connection in
            try connection.query(
                """
                WITH pruned AS (
                    DELETE FROM events WHERE id IN (
                        SELECT e.id FROM events e
                        WHERE e.created_at < now() - \(retention)::interval
                            AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
                        LIMIT \(batchSize)
                    )
                    RETURNING user_id, user_position
                )
                SELECT count(*) AS pruned, trim_user_orders(
                    array_agg(user_id) FILTER (WHERE user_position IS NOT NULL),
                    array_agg(user_position) FILTER (WHERE user_position IS NOT NULL))
                FROM pruned
                """
            ).single().decode("pruned")
        }
    }

    // MARK: Batch steps

    private static func recordAttempts(_ attempts: [CompletedAttempt], owner: String, on connection: PostgresConnection) throws {
        func column(_ value: (CompletedAttempt) -> String?) -> PostgresArray {
            PostgresArray(attempts.map(value))
        }
        try connection.execute(
            """
            WITH input AS (
                SELECT * FROM unnest(
                    \(column { $0.deliveryID.postgresText })::uuid[],
                    \(column { $0.eventID.postgresText })::uuid[],
                    \(column { $0.attemptedAt.postgresText })::timestamptz[],
                    \(column { String($0.durationMilliseconds) })::integer[],
                    \(column { $0.statusCode.map(String.init) })::integer[],
                    \(column { $0.error })::text[],
                    \(column { $0.responseBody })::text[],
                    \(column { $0.responseTruncated.postgresText })::boolean[],
                    \(column { $0.outcome.name })::text[],
                    \(column { $0.outcome.nextAttemptAt?.postgresText })::timestamptz[]
                ) AS i(delivery_id, event_id, attempted_at, duration_ms, status_code, error,
                       response_body, response_truncated, outcome, next_attempt_at)
            ), latest AS (
                -- failing_since follows each webhook's latest attempt in the
                -- batch: cleared by a success, set (if not yet) by a failure.
                SELECT DISTINCT ON (d.webhook_id) d.webhook_id, i.outcome = 'succeeded' AS delivered, i.attempted_at
                FROM input i JOIN deliveries d ON d.id = i.delivery_id
                ORDER BY d.webhook_id, i.attempted_at DESC
            ), health AS (
                UPDATE webhooks w
                SET failing_since = CASE WHEN latest.delivered THEN NULL ELSE coalesce(w.failing_since, latest.attempted_at) END
                FROM latest
                WHERE w.id = latest.webhook_id
                    AND (CASE WHEN latest.delivered THEN w.failing_since IS NOT NULL ELSE w.failing_since IS NULL END)
            ), attempts AS (
                INSERT INTO delivery_attempts (delivery_id, event_id, attempted_at, duration_ms, status_code,
                                               error, response_body, response_truncated)
                SELECT i.delivery_id, i.event_id, i.attempted_at, i.duration_ms, i.status_code,
                       i.error, i.response_body, i.response_truncated
                FROM input i JOIN deliveries d ON d.id = i.delivery_id
            )
            UPDATE deliveries d SET
                status = CASE i.outcome WHEN 'succeeded' THEN 'succeeded' WHEN 'retry' THEN 'pending' ELSE 'failed' END,
                attempt_count = d.attempt_count + 1,
                next_attempt_at = coalesce(i.next_attempt_at, d.next_attempt_at),
                lease_owner = NULL,
                lease_until = NULL,
                last_attempt_at = i.attempted_at,
                last_status_code = i.status_code,
                last_error = i.error,
                completed_at = CASE WHEN i.outcome = 'retry' THEN NULL ELSE now() END,
                updated_at = now()
            FROM input i
            WHERE d.id = i.delivery_id AND d.lease_owner = \(owner) AND d.status = 'pending'
            """)
    }

    private static func disableBroken(_ attempts: [CompletedAttempt], disableAfter: Duration, on connection: PostgresConnection) throws
        -> [DisabledWebhook]
    {
        let touched = Array(Set(attempts.map(\.webhookID)))
        let gone = Array(Set(attempts.filter { $0.outcome == .gone }.map(\.webhookID)))
        let disabled = try connection.query(
            """
            UPDATE webhooks
            SET disabled_at = now(),
                disabled_reason = CASE WHEN id = ANY (\(PostgresArray(gone))::uuid[])
                    THEN \(goneReason)
                    ELSE 'every delivery failed since ' || iso8601(failing_since) END,
                updated_at = now()
            WHERE disabled_at IS NULL AND (
                id = ANY (\(PostgresArray(gone))::uuid[])
                OR (id = ANY (\(PostgresArray(touched))::uuid[])
                    AND failing_since <= now() - \(disableAfter)::interval)
            )
            RETURNING id, user_id, disabled_reason, disabled_at
            """)
        var result: [DisabledWebhook] = []
        for row in disabled {
            let id: UUID = try row.decode("id")
            let userID: UUID? = try row.decode("user_id")
            let reason: String = try row.decode("disabled_reason")
            _ = try connection.query(
                """
                SELECT 1 FROM queue_events(ARRAY[ROW(
                    \(userID)::uuid, \(WebhookEventType.webhookDisabled.rawValue)::text,
                    jsonb_build_object('webhook_id', \(id)::uuid, 'reason', \(reason)::text, 'disabled_at', iso8601(now())),
                    NULL, \(id)::uuid
                )::outbox_event])
                """)
            try connection.execute(
                """
                UPDATE deliveries
                SET status = 'failed', completed_at = now(), lease_owner = NULL, lease_until = NULL,
                    last_error = coalesce(last_error, 'the webhook was disabled'), updated_at = now()
                WHERE webhook_id = \(id) AND status = 'pending'
                """)
            result.append(DisabledWebhook(id: id, reason: reason))
        }
        return result
    }
}

extension CompletedAttempt.Outcome {
    /// The name the batch statement switches on.
    var name: String {
        switch self {
        case .succeeded: "succeeded"
        case .retry: "retry"
        case .failed: "failed"
        case .gone: "gone"
        }
    }

    var nextAttemptAt: Date? {
        if case .retry(let at) = self { return at }
        return nil
    }
}
