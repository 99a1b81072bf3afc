package import FoundationEssentials
import TidingsPostgres
import TidingsSynchronization

/// The push dispatcher's side of the `pushes` table: claiming due pushes
/// under a lease, writing attempts back in batches, releasing leases.
extension PushStore {
    /// NOTIFYed by `queue_pushes` (at commit) and when leases are freed.
    package static let notificationChannel = "tidings_pushes"

    static func notifyDispatchers(on connection: PostgresConnection) throws {
        _ = try connection.query("SELECT pg_notify(\(notificationChannel), '')")
    }

    /// Deletes up to `batchSize` finished pushes (sent, failed, skipped or
    /// superseded) created longer than `retention` ago, through
    /// `pushes_created_brin` (migration 0029); a pending push is never
    /// pruned. Returns how many went.
    package func pruneFinished(olderThan retention: Duration, batchSize: Int) throws -> Int {
        try database.withConnection { connection in
            try connection.execute(
                """
                DELETE FROM pushes WHERE id IN (
                    SELECT id FROM pushes
                    WHERE created_at < now() - \(retention)::interval AND status <> 'pending'
                    LIMIT \(batchSize)
                )
                """)
        }
    }

    /// Leases up to `limit` due pushes to `owner` for `leaseDuration`. A
    /// badge or sync push waits while another of the same kind for the same
    /// device is in flight, and one with a newer push of its kind queued
    /// after it (`queued_seq`) is superseded instead of sent, so a device's
    /// counts arrive in order and the last one sent is the last one queued.
    /// Rows are locked with SKIP LOCKED: replicas never take the same push.
    ///
    /// The cost is that of `limit` rows, however many are due: candidates
    /// come in the order of `pushes_due_idx` (next_attempt_at alone, so the
    /// scan stops at the limit; ties, such as a burst from one transaction,
    /// go in index order), and the leased rows are found by id through the
    /// primary key rather than by joining the whole table. The update sets
    /// only the lease, which no index covers, so PostgreSQL makes it in
    /// place (HOT, migration 0027): the pushes in flight (up to
    /// `maxInFlight` per process) keep their place at the head of the due
    /// index, each claim steps over them by their lease, and an expired
    /// lease is claimable again at once.
    ///
    /// Sorting is off for the claim so that it always walks the due index
    /// in order and stops at the limit. With statistics from before a burst
    /// (a log of sent pushes, a table analyzed while nearly empty) the
    /// planner believed few pushes were pending, fetched all 50,000 of a
    /// burst, probed each and sorted them: 105 ms per claim of 512 instead
    /// of 12-19 ms, until autovacuum analyzed the table.
    ///
    /// The claim commits without waiting for its WAL to reach disk
    /// (decision 0032): a lease only keeps others away, so losing it in a
    /// PostgreSQL crash can at worst send a push again, which a lease that
    /// expires does anyway; its commit is visible to other claims at once.
    package func claim(owner: String, limit: Int, leaseDuration: Duration) throws -> [ClaimedPush] {
        guard limit > 0 else { return [] }
        let rows = try database.withTransaction { connection in
            _ = try connection.query("SELECT set_config('enable_sort', 'off', true), set_config('synchronous_commit', 'off', true)")
            return try connection.query(
                """
                WITH candidates AS (
                    SELECT p.id, (p.kind <> 'alert' AND EXISTS (
                        SELECT 1 FROM pushes n
                        WHERE n.device_id = p.device_id AND n.kind = p.kind AND n.queued_seq > p.queued_seq
                          AND n.status <> 'skipped')) AS stale
                    FROM pushes p
                    WHERE p.status = 'pending' AND p.next_attempt_at <= now()
                        AND (p.lease_until IS NULL OR p.lease_until < now())
                        AND (p.kind = 'alert' OR NOT EXISTS (
                            SELECT 1 FROM pushes o
                            WHERE o.device_id = p.device_id AND o.kind = p.kind AND o.status = 'pending'
                              AND o.lease_until >= now() AND o.id <> p.id))
                    ORDER BY p.next_attempt_at
                    LIMIT \(limit)
                    FOR UPDATE OF p SKIP LOCKED
                ), superseded AS (
                    UPDATE pushes p
                    SET status = 'superseded', completed_at = now(), lease_owner = NULL, lease_until = NULL, updated_at = now()
                    WHERE p.id = ANY (ARRAY(SELECT c.id FROM candidates c WHERE c.stale))
                )
                UPDATE pushes p
                SET lease_owner = \(owner), lease_until = now() + \(leaseDuration)::interval, updated_at = now()
                FROM devices d, push_apps a
                WHERE p.id = ANY (ARRAY(SELECT c.id FROM candidates c WHERE NOT c.stale))
                    AND d.id = p.device_id AND a.id = p.push_app_id
                RETURNING p.id, p.device_id, p.user_id, p.push_app_id, a.updated_at AS app_updated_at, a.platform,
                          d.push_token, d.web_push_p256dh, d.web_push_auth, p.kind, p.badge, p.watch_id, p.change_id, p.title, p.body, p.attempt_count,
                          CASE WHEN p.kind = 'sync' THEN (
                              SELECT max(c.user_position) FROM changes c WHERE c.user_id = p.user_id
                          ) END AS cursor
                """)
        }
        return try rows.map { row in
            ClaimedPush(
                id: try row.decode("id"),
                deviceID: try row.decode("device_id"),
                userID: try row.decode("user_id"),
                pushAppID: try row.decode("push_app_id"),
                pushAppUpdatedAt: try row.decode("app_updated_at"),
                platform: try row.decode("platform"),
                deviceToken: try row.decode("push_token"),
                kind: try row.decode("kind"),
                badge: try row.decode("badge"),
                watchID: try row.decode("watch_id"),
                changeID: try row.decode("change_id"),
                title: try row.decode("title"),
                body: try row.decode("body"),
                cursor: try row.decode("cursor", as: Int64?.self).map(FeedPosition.init),
                attemptCount: try row.decode("attempt_count"),
                webPushP256dh: try row.decode("web_push_p256dh"),
                webPushSealedAuth: try row.decode("web_push_auth")
            )
        }
    }

    /// Writes a batch of attempts in one transaction, each only while
    /// `owner` still holds the push's lease: sent, failed, or back to
    /// pending for a retry (superseded instead when a newer push of the
    /// same kind was queued for the device); dead tokens remove their devices
    /// (`invalidate_devices`, which announces them). Returns the devices
    /// removed.
    @discardableResult
    package func complete(_ results: [PushAttemptResult], owner: String) throws -> [UUID] {
        guard !results.isEmpty else { return [] }
        var ids: [UUID] = []
        var statuses: [String] = []
        var providerIDs: [String?] = []
        var reasons: [String?] = []
        var delays: [String?] = []
        var gone: [String: [UUID]] = [:]
        for result in results {
            ids.append(result.pushID)
            switch result.outcome {
            case .sent(let providerID):
                statuses.append("sent"); providerIDs.append(providerID); reasons.append(nil); delays.append(nil)
            case .retry(let after, let reason):
                statuses.append("pending"); providerIDs.append(nil); reasons.append(reason)
                delays.append(String(max(after, .zero).inSeconds))
            case .failed(let reason):
                statuses.append("failed"); providerIDs.append(nil); reasons.append(reason); delays.append(nil)
            case .deviceGone(let reason):
                statuses.append("failed"); providerIDs.append(nil); reasons.append(reason); delays.append(nil)
                gone[reason, default: []].append(result.deviceID)
            }
        }
        return try database.withTransaction { connection in
            _ = try connection.execute(
                """
                WITH r AS (
                    SELECT * FROM unnest(\(PostgresArray(ids))::uuid[], \(PostgresArray(statuses))::text[],
                                         \(PostgresArray(providerIDs))::text[], \(PostgresArray(reasons))::text[],
                                         \(PostgresArray(delays))::float8[])
                        AS r(id, status, provider_id, reason, delay)
                ), decided AS (
                    SELECT r.*, CASE
                        WHEN r.status = 'pending' AND p.kind <> 'alert' AND EXISTS (
                            SELECT 1 FROM pushes n WHERE n.device_id = p.device_id AND n.kind = p.kind
                              AND n.queued_seq > p.queued_seq AND n.status <> 'skipped') THEN 'superseded'
                        ELSE r.status END AS final
                    FROM r JOIN pushes p ON p.id = r.id
                )
                UPDATE pushes p
                SET status = d.final,
                    provider_id = d.provider_id,
                    reason = d.reason,
                    attempt_count = p.attempt_count + 1,
                    last_attempt_at = now(),
                    next_attempt_at = CASE WHEN d.final = 'pending' THEN now() + d.delay * interval '1 second' ELSE p.next_attempt_at END,
                    completed_at = CASE WHEN d.final = 'pending' THEN NULL ELSE now() END,
                    lease_owner = NULL, lease_until = NULL, updated_at = now()
                FROM decided d
                WHERE p.id = d.id AND p.lease_owner = \(owner)
                """)
            var removed: [UUID] = []
            for (reason, devices) in gone.sorted(by: { $0.key < $1.key }) {
                removed += try connection.query(
                    """
                    SELECT id FROM invalidate_devices(\(PostgresArray(devices))::uuid[], \(reason))
                    """
                ).map { try $0.decode("id", as: UUID.self) }
            }
            return removed
        }
    }

    /// Gives up `owner`'s leases (shutdown, or after its row was reaped):
    /// another dispatcher may send them at once; nothing counts as an attempt.
    @discardableResult
    package func releaseLeases(owner: String) throws -> Int {
        try database.withConnection { connection in
            try Self.releaseLeases(of: [owner], on: connection)
        }
    }

    /// Frees the pushes leased by `owners` (this process at shutdown, or
    /// dead ones the heartbeat reaped), due at once in their old order (a
    /// leased push's next_attempt_at is when it fell due), and wakes the
    /// dispatchers when any were freed. Leased pushes are pending ones: the
    /// pending indexes find them.
    static func releaseLeases(of owners: [String], on connection: PostgresConnection) throws -> Int {
        let released = try connection.execute(
            """
            UPDATE pushes SET lease_owner = NULL, lease_until = NULL, updated_at = now()
            WHERE status = 'pending' AND lease_owner = ANY(\(PostgresArray(owners))::text[])
            """)
        if released > 0 { try notifyDispatchers(on: connection) }
        return released
    }

    /// Time until the next pending push that is not due yet becomes due
    /// (a coalesced badge, a retry, a sync push past its budget), or nil
    /// when none waits. Pushes due already are the claim's: those it left
    /// wait for a push in flight, whose end wakes the dispatcher.
    package func timeUntilNextDue() throws -> Duration? {
        let row = try database.query(
            """
            SELECT extract(epoch FROM min(next_attempt_at) - now())::float8 AS seconds
            FROM pushes WHERE status = 'pending' AND next_attempt_at > now()
            """
        ).single()
        return try row.decode("seconds", as: Double?.self).map { Duration.seconds(clamping: $0) }
    }
}
