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
    /// How far past its next check a held target's `lease_until` is set:
    /// the hold's nominal end, for operators reading the row. Holds end
    /// when given back, taken over, rescheduled sooner, or freed with a
    /// dead poller (`LeaseOwnerStore.reapDead`), not by this time: held
    /// targets are out of the walk of due targets (decision 0058).
    package let holdGrace: Duration

    package init(database: PostgresClient, failureThreshold: Int, holdGrace: Duration = .seconds(15)) {
        self.database = database
        self.failureThreshold = failureThreshold
        self.holdGrace = holdGrace
    }

    // MARK: Claiming

    /// Up to `limit` due targets nobody holds, or whose lease expired, in
    /// due order, leased to this owner (a HOT update: no index covers the
    /// lease columns, migration 0012). SKIP LOCKED lets replicas claim side
    /// by side without waiting for, or taking, each other's rows. Targets
    /// held between checks are not among them: their `claim_at` is
    /// 'infinity' (migration 0042) and their holder reads them as they fall
    /// due (`readHeld`). The walk of `claim_at` starts after `cursor`, which
    /// moves to the last target returned, or back to the start when fewer
    /// than `limit` were; writing a result sets the next check.
    ///
    /// A target that only users in `excludingUsers` watch is passed over
    /// (users at their share of checks in flight), and so is one due after
    /// `dueBy`, when given (the caller has held targets due before it).
    package func claimDue(
        owner: String, limit: Int, lease: Duration, excludingUsers: [UUID] = [], dueBy: Date? = nil,
        cursor: inout ClaimCursor
    ) throws -> [ClaimedTarget] {
        guard limit > 0 else { return [] }
        let after = cursor
        let excluded = PostgresArray(excludingUsers)
        let (targets, last) = try database.withConnection { connection in
            let rows = try connection.query(
                """
                WITH due AS (
                    SELECT t.id, t.claim_at
                    FROM targets t
                    WHERE t.interval_seconds IS NOT NULL AND t.claim_at <= least(now(), \(dueBy)::timestamptz)
                      AND (t.claim_at, t.id) > (\(after.dueAt)::timestamptz, \(after.id)::uuid)
                      AND (t.lease_until IS NULL OR t.lease_until < now())
                      AND (cardinality(\(excluded)::uuid[]) = 0 OR EXISTS (
                          SELECT 1 FROM watches w WHERE w.target_id = t.id AND w.user_id <> ALL(\(excluded)::uuid[])))
                    ORDER BY t.claim_at, t.id
                    LIMIT \(limit)
                    FOR UPDATE OF t SKIP LOCKED
                )
                UPDATE targets t
                SET lease_owner = \(owner), lease_until = now() + \(lease)::interval, lease_held = false
                FROM due WHERE t.id = due.id
                RETURNING \(unsafeSQL: Self.targetColumns), due.claim_at::text AS due_at, extract(epoch FROM due.claim_at) AS due_epoch
                """)
            var last: (epoch: Double, high: UInt64, low: UInt64, cursor: ClaimCursor)?
            var targets: [ClaimedTarget] = []
            targets.reserveCapacity(rows.count)
            for row in rows {
                let target = try Self.target(from: row)
                let epoch: Double = try row.decode("due_epoch")
                // The rows come in no set order: keep the largest (due, id).
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

    /// The targets among `ids` that this owner still holds between checks
    /// (`isHeld`), read without a write: `due` are those whose next check
    /// has come, `later` the rest with their next check, should something
    /// other than their holder have put it off. Targets no longer held by
    /// this owner (given back, taken over, rescheduled sooner or paused
    /// through the API, deleted) are in neither.
    package func readHeld(owner: String, ids: [UUID]) throws -> (due: [ClaimedTarget], later: [(id: UUID, nextCheckAt: Date)]) {
        guard !ids.isEmpty else { return ([], []) }
        return try database.withConnection { connection in
            let rows = try connection.query(
                """
                SELECT \(unsafeSQL: Self.targetColumns), t.next_check_at, t.next_check_at <= now() AS due
                FROM targets t
                WHERE t.id = ANY(\(PostgresArray(ids))::uuid[]) AND t.lease_owner = \(owner) AND t.lease_held
                  AND t.interval_seconds IS NOT NULL
                """)
            var due: [ClaimedTarget] = []
            var later: [(id: UUID, nextCheckAt: Date)] = []
            for row in rows {
                var target = try Self.target(from: row)
                guard try row.decode("due", as: Bool.self) else {
                    later.append((target.id, try row.decode("next_check_at")))
                    continue
                }
                target.isHeld = true
                due.append(target)
            }
            return (try Self.withWatches(due, on: connection), later)
        }
    }

    /// `claimDue` from the start of the due targets (tests, one-off claims).
    package func claimDue(owner: String, limit: Int, lease: Duration) throws -> [ClaimedTarget] {
        var cursor = ClaimCursor.start
        return try claimDue(owner: owner, limit: limit, lease: lease, cursor: &cursor)
    }

    /// Leases one target now, due or not (a check asked for through the
    /// API), taking it over from a poller that only holds it between
    /// checks: should that poller be checking it right now after all, its
    /// result is not written (writes need the lease). Nil when a check
    /// holds its lease.
    package func claim(targetID: UUID, owner: String, lease: Duration) throws -> ClaimedTarget? {
        try database.withConnection { connection in
            let rows = try connection.query(
                """
                UPDATE targets t
                SET lease_owner = \(owner), lease_until = now() + \(lease)::interval, lease_held = false
                WHERE t.id = \(targetID) AND (t.lease_until IS NULL OR t.lease_until < now() OR t.lease_held)
                RETURNING \(unsafeSQL: Self.targetColumns)
                """)
            return try Self.withWatches(try rows.map(Self.target(from:)), on: connection).first
        }
    }

    /// Gives leases and holds back without checking: the targets are still
    /// due (claims leave `next_check_at` alone) and another replica, or this
    /// one later, takes them.
    package func release(owner: String, targetIDs: [UUID]) throws {
        guard !targetIDs.isEmpty else { return }
        try database.withConnection { connection in
            _ = try connection.execute(
                """
                UPDATE targets
                SET lease_owner = NULL, lease_until = NULL, lease_held = false
                WHERE lease_owner = \(owner) AND id = ANY(\(PostgresArray(targetIDs))::uuid[])
                """)
        }
    }

    /// Gives back every lease and hold of `owner` (shutdown), so other
    /// replicas take its targets at once rather than after its holds run
    /// out. No index on `lease_owner` (claims stay HOT updates): one scan of
    /// the targets per shutdown. Returns how many were given back.
    @discardableResult
    package func releaseAll(owner: String) throws -> Int {
        try database.withConnection { connection in
            try connection.execute(
                """
                UPDATE targets SET lease_owner = NULL, lease_until = NULL, lease_held = false
                WHERE lease_owner = \(owner)
                """)
        }
    }

    // MARK: Writing results

    /// Writes many quiet checks in two statements: the watches whose last
    /// result changed, then each target's schedule, counters and lease.
    /// Only targets this owner still leases or holds as it did when their
    /// check started are written, and only their watches. Returns the ids
    /// of the targets written.
    @discardableResult
    package func writeQuiet(owner: String, targets: [TargetCheckRecord], watches: [QuietWatchResult]) throws -> Set<UUID> {
        guard !targets.isEmpty || !watches.isEmpty else { return [] }
        return try database.withRetryingTransaction { connection in
            if !watches.isEmpty {
                // Watches before targets: the order of the eventful write.
                _ = try connection.execute(
                    """
                    UPDATE watches w
                    SET last_checked_at = r.checked_at, last_check_result = r.result,
                        consecutive_failures = 0, last_error = NULL
                    FROM unnest(\(PostgresArray(watches.map(\.watchID)))::uuid[], \(PostgresArray(watches.map(\.result.rawValue)))::text[],
                                \(PostgresArray(watches.map(\.checkedAt)))::timestamptz[], \(PostgresArray(watches.map(\.underHold)))::boolean[])
                         AS r(id, result, checked_at, under_hold)
                    WHERE w.id = r.id AND w.state = 'ok'
                      AND (w.last_check_result IS DISTINCT FROM r.result OR w.consecutive_failures <> 0
                           OR w.last_checked_at IS NULL)
                      AND EXISTS (SELECT 1 FROM targets t
                                  WHERE t.id = w.target_id AND t.lease_owner = \(owner) AND t.lease_held = r.under_hold)
                    """)
            }
            return try Self.writeTargets(targets, owner: owner, holdGrace: holdGrace, on: connection)
        }
    }

    /// Writes the targets this owner still leases, or holds, as when their
    /// check started (`TargetCheckRecord.underHold`); each one stays held
    /// by it (`TargetCheckRecord.keepsHold`), or is given back. A held
    /// target's write changes no indexed column (its `claim_at` stays
    /// 'infinity'): a HOT update. Returns the ids written. What it sets,
    /// `ClaimedTarget.afterQuietWrite` mirrors.
    @discardableResult
    static func writeTargets(
        _ records: [TargetCheckRecord], owner: String, holdGrace: Duration, on connection: PostgresConnection
    ) throws -> Set<UUID> {
        guard !records.isEmpty else { return [] }
        let rows = records.map(TargetRow.init)
        func column<Value: PostgresEncodable>(_ value: (TargetRow) -> Value?) -> PostgresArray {
            PostgresArray(rows.map(value))
        }
        let written = try connection.query(
            """
            UPDATE targets t
            SET next_check_at = r.next_check_at,
                lease_owner = CASE WHEN r.hold THEN t.lease_owner END,
                lease_until = CASE WHEN r.hold THEN r.next_check_at + \(holdGrace)::interval END,
                lease_held = r.hold,
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
                \(column(\.bytesReceived))::bigint[], \(column(\.bytesSaved))::bigint[], \(column(\.hold))::boolean[],
                \(column(\.underHold))::boolean[]
            ) AS r(id, checked_at, next_check_at, status, error, replace_validators, etag, last_modified,
                   replace_version, version, replace_body_sha256, body_sha256, unconditional, content_changed,
                   body_size, requests, not_modified, bytes_received, bytes_saved, hold, under_hold)
            WHERE t.id = r.id AND t.lease_owner = \(owner) AND t.lease_held = r.under_hold
            RETURNING t.id
            """)
        return Set(try written.map { try $0.decode("id", as: UUID.self) })
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
        let hold: Bool
        let underHold: Bool

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
            hold = record.keepsHold
            underHold = record.underHold
            notModified = record.notModified
            bytesReceived = record.bytesReceived
            bytesSaved = record.bytesSaved
        }
    }
}
