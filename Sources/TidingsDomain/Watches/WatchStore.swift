package import FoundationEssentials
package import TidingsPostgres

/// Watches and the targets they share: all SQL for the watches aggregate.
/// Every statement is scoped by the owner's id, so another user's watch is
/// indistinguishable from a missing one.
///
/// The `watches_sync_targets` trigger (migration 0003) keeps each target's
/// interval in step with its watches and deletes a target with its last
/// watch, in the same transaction, whichever way the watch goes (including
/// the cascade from a deleted user).
///
/// Writes retry when they lose a race to another writer (`withRetryingTransaction`):
/// two watches moving between the same two targets in opposite directions
/// lock them in opposite orders, and a target may lose its last watch, and
/// so be deleted, between this transaction finding it and referring to it.
package struct WatchStore: Sendable {
    let database: PostgresClient
    let secrets: StoredSecrets
    let maxRulesPerTarget: Int
    private let reads: BatchingQueue<WatchKey, Watch?>

    /// Distinct extraction rules one target may carry unless configured
    /// (`TIDINGS_MAX_RULES_PER_TARGET`, docs/LIMITS.md).
    package static let defaultMaxRulesPerTarget = 32

    /// `secrets` seals header values on the way in; reads of a watch never
    /// open them (only `update` does, to compare and to move them).
    package init(database: PostgresClient, secrets: StoredSecrets, maxRulesPerTarget: Int = defaultMaxRulesPerTarget) {
        self.database = database
        self.secrets = secrets
        self.maxRulesPerTarget = maxRulesPerTarget
        reads = BatchingQueue(
            runBatch: { try Self.watches($0, on: database) },
            runOne: { try Self.watch($0, on: database) }
        )
    }

    /// Creates a watch, attaching it to the target for its URL and headers
    /// (created if needed), in one transaction. Throws `UserLimitExceeded`
    /// when the user already has as many watches as it may (migration
    /// 0018), and `RulesPerTargetExceeded` when the target would carry too
    /// many distinct rules; the target's upsert is rolled back with it.
    ///
    /// `dueNow`: the target is made due now for the new watch's baseline.
    /// False (the user's check rate is spent) leaves an existing target's
    /// schedule alone, and schedules a new one an interval from now: the
    /// watch is `pending` until then.
    package func create(userID: UUID, settings: WatchSettings, dueNow: Bool = true) throws -> Watch {
        try UserLimitExceeded.mapping(.watches) {
            try database.withRetryingTransaction(foreignKeyRaces: true) { connection in
                let targetID = try Self.attachTarget(settings, dueNow: dueNow, secrets: secrets, on: connection)
                let id = try connection.query(
                    """
                    INSERT INTO watches (user_id, target_id, name, interval_seconds, max_interval_seconds, max_interval_chosen,
                                         extract, paused, notify)
                    VALUES (\(userID), \(targetID), \(settings.name), \(settings.intervalSeconds),
                            \(settings.maxIntervalSeconds), \(settings.maxIntervalChosen),
                            \(try Self.extractJSON(settings.extract))::jsonb, \(settings.paused), \(settings.notify))
                    RETURNING id
                    """
                ).single().decode("id", as: UUID.self)
                try requireRuleRoom(targetID: targetID, on: connection)
                return try Self.requireWatch(userID: userID, id: id, on: connection)
            }
        }
    }

    /// Concurrent reads share one query (`BatchingQueue`). A read joins only
    /// a batch whose query has not started yet, so it never sees a watch
    /// older than the moment it was asked for; a caller gets a row only if
    /// both its id and its owner match.
    package func watch(userID: UUID, id: UUID) throws -> Watch? {
        try reads.submit(WatchKey(userID: userID, id: id))
    }

    private struct WatchKey: Hashable, Sendable {
        let userID: UUID
        let id: UUID
    }

    private static func watch(_ key: WatchKey, on database: PostgresClient) throws -> Watch? {
        try database.query("\(unsafeSQL: selectWatch) WHERE w.id = \(key.id) AND w.user_id = \(key.userID)")
            .first.map(Self.watch(from:))
    }

    /// One watch (or nil) per key, in order; a key may appear several times.
    private static func watches(_ keys: [WatchKey], on database: PostgresClient) throws -> [Watch?] {
        let rows = try database.query(
            """
            \(unsafeSQL: selectWatch)
            WHERE w.id = ANY(\(PostgresArray(keys.map { $0.id }))::uuid[]) AND w.user_id = ANY(\(PostgresArray(keys.map { $0.userID }))::uuid[])
            """)
        var watches = [WatchKey: Watch](minimumCapacity: rows.count)
        for row in rows {
            let watch = try Self.watch(from: row)
            watches[WatchKey(userID: watch.userID, id: watch.id)] = watch
        }
        return keys.map { watches[$0] }
    }

    package func list(userID: UUID, filter: WatchFilter, page: PageRequest) throws -> Page<Watch> {
        let state = filter.state?.rawValue
        let rows = try database.query(
            """
            \(unsafeSQL: Self.selectWatch)
            WHERE w.user_id = \(userID)
              AND (w.created_at, w.id) > (\(page.after.createdAt), \(page.after.id))
              AND (\(filter.paused)::boolean IS NULL OR w.paused = \(filter.paused))
              AND (\(state)::text IS NULL OR w.state = \(state))
            ORDER BY w.created_at, w.id LIMIT \(page.limit + 1)
            """)
        return Page.from(rows: try rows.map(Self.watch(from:)), limit: page.limit) {
            PageCursor(createdAt: $0.createdAt, id: $0.id)
        }
    }

    /// Lets `edit` change the watch's settings and stores the result, all in
    /// one transaction with the watch locked; an error thrown by `edit` (a
    /// validation failure) leaves everything as it was. Nil when the user
    /// has no such watch.
    ///
    /// A new URL or new headers move the watch to another target. When what
    /// the watch compares changes, its hash and check state start over
    /// (`pending`), and a changed extraction rule drops the target's
    /// validators so the next fetch returns a full body to hash; the target
    /// is made due now unless `dueNow` (asked only then) says no, as for
    /// `create`. Throws `RulesPerTargetExceeded` as `create` does.
    package func update(
        userID: UUID, id: UUID, dueNow: () -> Bool = { true }, _ edit: (inout WatchSettings) throws -> Void
    ) throws -> Watch? {
        try database.withRetryingTransaction(foreignKeyRaces: true) { connection in
            guard
                let row = try connection.query(
                    """
                    SELECT w.target_id, t.url, t.headers::text AS headers, t.secrets_sealed, w.name, w.interval_seconds,
                           w.max_interval_seconds, w.max_interval_chosen,
                           t.version_url, t.version_pointer, t.version_headers::text AS version_headers,
                           w.extract::text AS extract, w.paused, w.notify
                    FROM watches w JOIN targets t ON t.id = w.target_id
                    WHERE w.id = \(id) AND w.user_id = \(userID)
                    FOR UPDATE OF w
                    """
                ).first
            else { return nil }
            let current = try Self.settings(from: row, secrets: secrets)
            var updated = current
            try edit(&updated)
            guard updated != current else {
                return try Self.requireWatch(userID: userID, id: id, on: connection)
            }

            var targetID = try row.decode("target_id", as: UUID.self)
            if !updated.fetchesSameTarget(as: current) {
                try Self.lockTargets(targetID, andTheOneOf: updated, secrets: secrets, on: connection)
                targetID = try Self.attachTarget(updated, dueNow: dueNow(), secrets: secrets, on: connection)
            } else if updated.extract != current.extract {
                try Self.requireFullFetch(targetID: targetID, dueNow: dueNow(), on: connection)
            }
            // A watch moving to another target starts its statistics from
            // that target's totals (migration 0021: no trigger does it).
            let moved = targetID != (try row.decode("target_id", as: UUID.self))
            try connection.execute(
                """
                UPDATE watches w
                SET target_id = \(targetID), name = \(updated.name), interval_seconds = \(updated.intervalSeconds),
                    max_interval_seconds = \(updated.maxIntervalSeconds), max_interval_chosen = \(updated.maxIntervalChosen),
                    extract = \(try Self.extractJSON(updated.extract))::jsonb, paused = \(updated.paused),
                    notify = \(updated.notify),
                    statistics_base_requests = CASE WHEN \(moved) THEN b.requests ELSE w.statistics_base_requests END,
                    statistics_base_not_modified = CASE WHEN \(moved) THEN b.not_modified ELSE w.statistics_base_not_modified END,
                    statistics_base_bytes_received = CASE WHEN \(moved) THEN b.bytes_received ELSE w.statistics_base_bytes_received END,
                    statistics_base_bytes_saved = CASE WHEN \(moved) THEN b.bytes_saved ELSE w.statistics_base_bytes_saved END,
                    updated_at = now()
                FROM watch_statistics_base(\(targetID)) AS b
                WHERE w.id = \(id)
                """)
            if updated.extract != current.extract || moved {
                try requireRuleRoom(targetID: targetID, on: connection)
            }
            if !updated.comparesSameContent(as: current) {
                try connection.execute(
                    """
                    UPDATE watches
                    SET state = 'pending', content_hash = NULL, last_checked_at = NULL,
                        last_check_result = NULL, consecutive_failures = 0, last_error = NULL
                    WHERE id = \(id)
                    """)
            }
            return try Self.requireWatch(userID: userID, id: id, on: connection)
        }
    }

    /// Pauses or resumes; doing it twice changes nothing (not even
    /// `updated_at`). Nil when the user has no such watch.
    package func setPaused(_ paused: Bool, userID: UUID, id: UUID) throws -> Watch? {
        try database.withRetryingTransaction { connection in
            let updated = try connection.execute(
                """
                UPDATE watches
                SET paused = \(paused), updated_at = CASE WHEN paused = \(paused) THEN updated_at ELSE now() END
                WHERE id = \(id) AND user_id = \(userID)
                """)
            guard updated == 1 else { return nil }
            return try Self.requireWatch(userID: userID, id: id, on: connection)
        }
    }

    /// Deletes the watch (and, through the trigger, its target if no other
    /// watch uses it). False when the user has no such watch.
    package func delete(userID: UUID, id: UUID) throws -> Bool {
        try database.withRetryingTransaction { connection in
            try connection.execute("DELETE FROM watches WHERE id = \(id) AND user_id = \(userID)")
        } == 1
    }

    // MARK: Targets

    /// Finds or creates the target for the settings' URL, headers and
    /// version check (migration 0007: the version endpoint decides whether
    /// the page is fetched, so it belongs to the target) and returns its
    /// id, the row locked: a concurrent delete of the target's last watch
    /// either finishes first (and a fresh target is created) or waits and
    /// sees this watch and keeps the target.
    ///
    /// A watch joining a target needs a baseline from a full body, so the
    /// target's validators are dropped and it becomes due now (unless not
    /// `dueNow`: then at its next check).
    ///
    /// Header values (the page's and the version endpoint's) are sealed (a
    /// fresh nonce each time, so the stored text differs per insert); the
    /// identity is the keyed fingerprint of the plain values, so equal
    /// headers still find the same target, and a target that exists keeps
    /// its sealed values.
    private static func attachTarget(_ settings: WatchSettings, dueNow: Bool, secrets: StoredSecrets, on connection: PostgresConnection)
        throws -> UUID
    {
        let versionHeaders = settings.versionCheck?.headers ?? .none
        let sealedHeaders = try headersJSON(secrets.sealHeaders(settings.headers.fields))
        let sealedVersionHeaders = try headersJSON(secrets.sealHeaders(versionHeaders.fields, in: .versionHeaders))
        let (url, fingerprint, versionURL, versionPointer) = identity(of: settings, secrets: secrets)
        // Each turn ends with a target unless one with this identity was
        // deleted or created by another transaction in between.
        for _ in 0..<attachAttempts {
            if let existing = try connection.query(
                """
                UPDATE targets t
                SET etag = NULL, last_modified = NULL, last_version = NULL,
                    next_check_at = CASE WHEN \(dueNow) THEN least(t.next_check_at, now()) ELSE t.next_check_at END
                FROM target_identities i
                WHERE t.id = i.target_id AND i.url = \(url) AND i.headers_fingerprint = \(fingerprint)
                  AND i.version_url IS NOT DISTINCT FROM \(versionURL) AND i.version_pointer IS NOT DISTINCT FROM \(versionPointer)
                RETURNING t.id
                """
            ).first {
                return try existing.decode("id")
            }
            // The identity goes in first: of two transactions creating the
            // same target, the second waits here and then inserts nothing.
            if let created = try connection.query(
                """
                WITH identity AS (
                    INSERT INTO target_identities (target_id, url, headers_fingerprint, version_url, version_pointer)
                    VALUES (gen_random_uuid(), \(url), \(fingerprint), \(versionURL), \(versionPointer))
                    ON CONFLICT ON CONSTRAINT target_identities_key DO NOTHING
                    RETURNING target_id
                )
                INSERT INTO targets (id, url, headers, headers_fingerprint, secrets_sealed, version_url, version_pointer, version_headers,
                                     next_check_at)
                SELECT target_id, \(url), \(sealedHeaders)::jsonb, \(fingerprint), true,
                       \(versionURL), \(versionPointer), \(sealedVersionHeaders)::jsonb,
                       -- Not due now: the watches trigger brings it to an interval from now.
                       CASE WHEN \(dueNow) THEN now() ELSE 'infinity'::timestamptz END
                FROM identity
                RETURNING id
                """
            ).first {
                return try created.decode("id")
            }
        }
        throw PostgresError(code: .noRow, message: "the target of \(url) was created and deleted meanwhile \(attachAttempts) times")
    }

    private static let attachAttempts = 8

    /// The key of `target_identities` that the settings' target has.
    private static func identity(of settings: WatchSettings, secrets: StoredSecrets)
        -> (url: String, fingerprint: String, versionURL: String?, versionPointer: String?)
    {
        let versionHeaders = settings.versionCheck?.headers ?? .none
        return (
            settings.url.text, secrets.fingerprint(settings.headers, versionHeaders: versionHeaders),
            settings.versionCheck?.url.text, settings.versionCheck?.pointer
        )
    }

    /// Locks a moving watch's old target and, if it exists, its new one, in
    /// id order. Each is locked again on the way (`attachTarget`, the
    /// `watches_sync_targets` trigger), new before old: two watches moving
    /// between the same two targets in opposite directions would otherwise
    /// each hold the target the other waits for.
    private static func lockTargets(
        _ oldTargetID: UUID, andTheOneOf settings: WatchSettings, secrets: StoredSecrets, on connection: PostgresConnection
    ) throws {
        let (url, fingerprint, versionURL, versionPointer) = identity(of: settings, secrets: secrets)
        _ = try connection.query(
            """
            SELECT id FROM targets
            WHERE id = \(oldTargetID) OR id = (
                SELECT target_id FROM target_identities
                WHERE url = \(url) AND headers_fingerprint = \(fingerprint)
                  AND version_url IS NOT DISTINCT FROM \(versionURL) AND version_pointer IS NOT DISTINCT FROM \(versionPointer))
            ORDER BY id
            FOR UPDATE
            """)
    }

    private static func requireFullFetch(targetID: UUID, dueNow: Bool, on connection: PostgresConnection) throws {
        try connection.execute(
            """
            UPDATE targets SET etag = NULL, last_modified = NULL, last_version = NULL, body_sha256 = NULL,
                next_check_at = CASE WHEN \(dueNow) THEN least(next_check_at, now()) ELSE next_check_at END
            WHERE id = \(targetID)
            """)
    }

    /// Throws `RulesPerTargetExceeded` when the target's watches carry more
    /// distinct rules than allowed (no rule, the readable default, is one).
    /// The target row is locked first, so concurrent writers of one target
    /// count one after another, each seeing what the other committed.
    private func requireRuleRoom(targetID: UUID, on connection: PostgresConnection) throws {
        _ = try connection.query("SELECT id FROM targets WHERE id = \(targetID) FOR NO KEY UPDATE")
        let rules = try connection.query(
            """
            SELECT count(DISTINCT coalesce(extract, 'null'::jsonb)) AS rules FROM watches WHERE target_id = \(targetID)
            """
        ).single().decode("rules", as: Int.self)
        if rules > maxRulesPerTarget { throw RulesPerTargetExceeded(maximum: maxRulesPerTarget) }
    }
}
