package import FoundationEssentials
package import TidingsPostgres

/// All SQL of the poller: claiming due targets under a lease, reading their
/// watches, and writing check results. Quiet results (304, version or hash
/// unchanged) are written in batches; anything that records content, moves
/// a failure count or changes a watch's state is written for many targets in
/// one transaction, which decides baseline, unchanged or changed from the
/// rows it locks and writes through `record_changes` and `queue_events`
/// (schema/functions/; see CheckStore+EventfulWrites.swift).
package struct CheckStore: Sendable {
    let database: PostgresClient
    /// Consecutive failed checks after which a watch is `failing`.
    package let failureThreshold: Int

    package init(database: PostgresClient, failureThreshold: Int) {
        self.database = database
        self.failureThreshold = failureThreshold
    }

    // MARK: Claiming

    /// Leases up to `limit` due targets whose lease is free or expired, in
    /// due order. SKIP LOCKED lets replicas claim side by side without
    /// waiting for, or taking, each other's rows. The claim sets only the
    /// lease (a HOT update: no indexed column changes, migration 0012); the
    /// scan starts after `cursor`, which moves to the last target claimed,
    /// or back to the start when fewer than `limit` were left. A claimed
    /// target stays due, so a crashed replica's target is taken over as soon
    /// as its lease expires; writing the result sets the next check.
    ///
    /// A target that only users in `excludingUsers` watch is passed over
    /// (users at their share of checks in flight). Each claim is planned
    /// for its own values, so with none the condition folds away.
    package func claimDue(
        owner: String, limit: Int, lease: Duration, excludingUsers: [UUID] = [], cursor: inout ClaimCursor
    ) throws -> [ClaimedTarget] {
        guard limit > 0 else { return [] }
        let after = cursor
        let excluded = PostgresArray(excludingUsers)
        let (targets, last) = try database.withConnection { connection in
            let rows = try connection.query(
                """
                UPDATE targets t
                SET lease_owner = \(owner), lease_until = now() + \(lease)::interval
                WHERE t.id IN (
                    SELECT id FROM targets
                    WHERE interval_seconds IS NOT NULL AND next_check_at <= now()
                      AND (next_check_at, id) > (\(after.dueAt)::timestamptz, \(after.id)::uuid)
                      AND (lease_until IS NULL OR lease_until < now())
                      AND (cardinality(\(excluded)::uuid[]) = 0 OR EXISTS (
                          SELECT 1 FROM watches w WHERE w.target_id = targets.id AND w.user_id <> ALL(\(excluded)::uuid[])))
                    ORDER BY next_check_at, id
                    LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                )
                RETURNING \(unsafeSQL: Self.targetColumns), t.next_check_at::text AS due_at,
                          extract(epoch FROM t.next_check_at) AS due_epoch
                """)
            var last: (epoch: Double, high: UInt64, low: UInt64, cursor: ClaimCursor)?
            var targets: [ClaimedTarget] = []
            targets.reserveCapacity(rows.count)
            for row in rows {
                let target = try Self.target(from: row)
                let epoch: Double = try row.decode("due_epoch")
                // RETURNING has no order: keep the largest (due, id).
                let (high, low) = ClaimCursor.order(target.id)
                if last.map({ ($0.epoch, $0.high, $0.low) < (epoch, high, low) }) ?? true {
                    last = (epoch, high, low, ClaimCursor(dueAt: try row.decode("due_at"), id: target.id))
                }
                targets.append(target)
            }
            return (try Self.withWatches(targets, on: connection), last?.cursor)
        }
        cursor = targets.count < limit ? .start : last ?? .start
        return targets
    }

    /// `claimDue` from the start of the due targets (tests, one-off claims).
    package func claimDue(owner: String, limit: Int, lease: Duration) throws -> [ClaimedTarget] {
        var cursor = ClaimCursor.start
        return try claimDue(owner: owner, limit: limit, lease: lease, cursor: &cursor)
    }

    /// Leases one target now, due or not (a check asked for through the
    /// API). Nil when another check holds it.
    package func claim(targetID: UUID, owner: String, lease: Duration) throws -> ClaimedTarget? {
        try database.withConnection { connection in
            let rows = try connection.query(
                """
                UPDATE targets t
                SET lease_owner = \(owner), lease_until = now() + \(lease)::interval
                WHERE t.id = \(targetID) AND (t.lease_until IS NULL OR t.lease_until < now())
                RETURNING \(unsafeSQL: Self.targetColumns)
                """)
            return try Self.withWatches(try rows.map(Self.target(from:)), on: connection).first
        }
    }

    /// Gives leases back without checking (shutdown): the targets are still
    /// due (claims leave `next_check_at` alone) and another replica, or this
    /// one after a restart, takes them.
    package func release(owner: String, targetIDs: [UUID]) throws {
        guard !targetIDs.isEmpty else { return }
        try database.withConnection { connection in
            _ = try connection.execute(
                """
                UPDATE targets
                SET lease_owner = NULL, lease_until = NULL
                WHERE lease_owner = \(owner) AND id = ANY(\(PostgresArray(targetIDs))::uuid[])
                """)
        }
    }

    // MARK: Writing results

    /// Writes many quiet checks in two statements: each target's schedule,
    /// counters and lease, and the watches whose last result changed. Only
    /// targets this owner still holds are written.
    package func writeQuiet(owner: String, targets: [TargetCheckRecord], watches: [(watchID: UUID, result: CheckResult, checkedAt: Date)])
        throws
    {
        guard !targets.isEmpty || !watches.isEmpty else { return }
        try database.withRetryingTransaction { connection in
            if !watches.isEmpty {
                _ = try connection.execute(
                    """
                    UPDATE watches w
                    SET last_checked_at = r.checked_at, last_check_result = r.result,
                        consecutive_failures = 0, last_error = NULL
                    FROM unnest(\(PostgresArray(watches.map(\.watchID)))::uuid[], \(PostgresArray(watches.map(\.result.rawValue)))::text[],
                                \(PostgresArray(watches.map(\.checkedAt)))::timestamptz[]) AS r(id, result, checked_at)
                    WHERE w.id = r.id AND w.state = 'ok'
                      AND (w.last_check_result IS DISTINCT FROM r.result OR w.consecutive_failures <> 0
                           OR w.last_checked_at IS NULL)
                    """)
            }
            try Self.writeTargets(targets, owner: owner, on: connection)
        }
    }

    static func writeTargets(_ records: [TargetCheckRecord], owner: String, on connection: PostgresConnection) throws {
        guard !records.isEmpty else { return }
        let rows = records.map(TargetRow.init)
        func column<Value: PostgresEncodable>(_ value: (TargetRow) -> Value?) -> PostgresArray {
            PostgresArray(rows.map(value))
        }
        try connection.execute(
            """
            UPDATE targets t
            SET next_check_at = r.next_check_at,
                lease_owner = NULL, lease_until = NULL,
                last_checked_at = r.checked_at,
                last_status = r.status,
                last_error = r.error,
                consecutive_failures = CASE WHEN r.error IS NULL THEN 0 ELSE t.consecutive_failures + 1 END,
                etag = CASE WHEN r.replace_validators THEN r.etag ELSE t.etag END,
                last_modified = CASE WHEN r.replace_validators THEN r.last_modified ELSE t.last_modified END,
                last_version = CASE WHEN r.replace_version THEN r.version ELSE t.last_version END,
                body_sha256 = CASE WHEN r.replace_body_sha256 THEN r.body_sha256 ELSE t.body_sha256 END,
                checks_since_full = CASE WHEN r.unconditional THEN 0 ELSE t.checks_since_full + 1 END,
                content_changed_at = CASE WHEN r.content_changed THEN r.checked_at ELSE t.content_changed_at END,
                last_body_size = coalesce(r.body_size, t.last_body_size),
                request_count = t.request_count + r.requests,
                not_modified_count = t.not_modified_count + r.not_modified,
                bytes_received = t.bytes_received + r.bytes_received,
                bytes_saved = t.bytes_saved + r.bytes_saved
            FROM unnest(
                \(column(\.id))::uuid[], \(column(\.checkedAt))::timestamptz[], \(column(\.nextCheckAt))::timestamptz[],
                \(column(\.status))::integer[], \(column(\.error))::text[],
                \(column(\.replaceValidators))::boolean[], \(column(\.etag))::text[], \(column(\.lastModified))::text[],
                \(column(\.replaceVersion))::boolean[], \(column(\.version))::text[],
                \(column(\.replaceBodySHA256))::boolean[], \(column(\.bodySHA256))::text[],
                \(column(\.unconditional))::boolean[], \(column(\.contentChanged))::boolean[], \(column(\.bodySize))::bigint[],
                \(column(\.requests))::bigint[], \(column(\.notModified))::bigint[],
                \(column(\.bytesReceived))::bigint[], \(column(\.bytesSaved))::bigint[]
            ) AS r(id, checked_at, next_check_at, status, error, replace_validators, etag, last_modified,
                   replace_version, version, replace_body_sha256, body_sha256, unconditional, content_changed,
                   body_size, requests, not_modified, bytes_received, bytes_saved)
            WHERE t.id = r.id AND t.lease_owner = \(owner)
            """)
    }

    // MARK: Rows

    private static let targetColumns = """
        t.id, t.url, t.headers::text AS headers, t.secrets_sealed, t.etag, t.last_modified, t.version_url, t.version_pointer,
        t.version_headers::text AS version_headers, t.last_version, t.checks_since_full, t.interval_seconds, t.consecutive_failures, t.last_body_size,
        t.body_sha256, t.max_interval_seconds, t.content_changed_at
        """

    private static func target(from row: PostgresRow) throws -> ClaimedTarget {
        ClaimedTarget(
            id: try row.decode("id"),
            url: try row.decode("url"),
            storedHeaders: try row.decode("headers"),
            storedVersionHeaders: try row.decode("version_headers"),
            headersSealed: try row.decode("secrets_sealed"),
            etag: try row.decode("etag"),
            lastModified: try row.decode("last_modified"),
            versionURL: try row.decode("version_url"),
            versionPointer: try row.decode("version_pointer"),
            lastVersion: try row.decode("last_version"),
            checksSinceFull: try row.decode("checks_since_full"),
            intervalSeconds: try row.decode("interval_seconds", as: Int?.self) ?? 300,
            maxIntervalSeconds: try row.decode("max_interval_seconds", as: Int?.self) ?? 300,
            contentChangedAt: try row.decode("content_changed_at"),
            consecutiveFailures: try row.decode("consecutive_failures"),
            lastBodySize: try row.decode("last_body_size"),
            bodySHA256: try row.decode("body_sha256"),
            watches: []
        )
    }

    private static func withWatches(_ targets: [ClaimedTarget], on connection: PostgresConnection) throws -> [ClaimedTarget] {
        guard !targets.isEmpty else { return [] }
        let rows = try connection.query(
            """
            SELECT id, user_id, target_id, extract::text AS extract, content_hash, state, paused,
                   last_check_result, consecutive_failures, last_checked_at IS NOT NULL AS was_checked, quiet_rebaseline
            FROM watches WHERE target_id = ANY(\(PostgresArray(targets.map(\.id)))::uuid[])
            """)
        var byTarget: [UUID: [TargetWatch]] = [:]
        // Watches share a handful of rules: each distinct one is decoded
        // once per claim (decoding was 2 % of the poller's CPU on the mix).
        var rules: [String: ExtractionRule?] = [:]
        for row in rows {
            let extractJSON: String? = try row.decode("extract")
            let extract = extractJSON.flatMap { json in
                if let known = rules[json] { return known }
                let rule = try? JSONDecoder().decode(ExtractionRule.self, from: Data(json.utf8))
                rules[json] = rule
                return rule
            }
            let watch = TargetWatch(
                id: try row.decode("id"),
                userID: try row.decode("user_id"),
                extract: extract,
                extractJSON: extractJSON,
                contentHash: try row.decode("content_hash"),
                state: WatchState(rawValue: try row.decode("state")) ?? .pending,
                paused: try row.decode("paused"),
                lastCheckResult: (try row.decode("last_check_result", as: String?.self)).flatMap(CheckResult.init(rawValue:)),
                consecutiveFailures: try row.decode("consecutive_failures"),
                wasChecked: try row.decode("was_checked"),
                quietRebaseline: try row.decode("quiet_rebaseline")
            )
            byTarget[try row.decode("target_id"), default: []].append(watch)
        }
        return targets.map { target in
            var target = target
            target.watches = byTarget[target.id] ?? []
            return target
        }
    }

    /// A target's columns as `writeTargets` binds them.
    private struct TargetRow {
        let id: UUID
        let checkedAt: Date
        let nextCheckAt: Date
        let status: Int?
        let error: String?
        let replaceValidators: Bool
        let etag: String?
        let lastModified: String?
        let replaceVersion: Bool
        let version: String?
        let replaceBodySHA256: Bool
        let bodySHA256: String?
        let unconditional: Bool
        let contentChanged: Bool
        let bodySize: Int?
        let requests: Int
        let notModified: Int
        let bytesReceived: Int
        let bytesSaved: Int

        init(_ record: TargetCheckRecord) {
            id = record.targetID
            checkedAt = record.checkedAt
            nextCheckAt = record.nextCheckAt
            status = record.httpStatus
            error = record.error
            switch record.validators {
            case .keep: (replaceValidators, etag, lastModified) = (false, nil, nil)
            case .replace(let values): (replaceValidators, etag, lastModified) = (true, values.etag, values.lastModified)
            }
            switch record.version {
            case .keep: (replaceVersion, version) = (false, nil)
            case .replace(let value): (replaceVersion, version) = (true, value)
            }
            switch record.bodySHA256 {
            case .keep: (replaceBodySHA256, bodySHA256) = (false, nil)
            case .replace(let value): (replaceBodySHA256, bodySHA256) = (true, value)
            }
            unconditional = record.wasUnconditional
            contentChanged = record.contentChanged
            bodySize = record.fullBodySize
            requests = record.requests
            notModified = record.notModified
            bytesReceived = record.bytesReceived
            bytesSaved = record.bytesSaved
        }
    }
}
