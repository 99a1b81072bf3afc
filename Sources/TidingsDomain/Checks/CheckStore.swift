import FoundationEssentials
import TidingsPostgres

/// All SQL of the poller: claiming due targets under a lease, reading their
/// watches, and writing check results. Quiet results (304, version or hash
/// unchanged) are written in batches; anything that records content, moves
/// a failure count or changes a watch's state is written per target in one
/// transaction, through `record_change` and `enqueue_event` (migration 0006).
public struct CheckStore: Sendable {
    private let database: PostgresClient
    /// Consecutive failed checks after which a watch is `failing`.
    public let failureThreshold: Int

    public init(database: PostgresClient, failureThreshold: Int) {
        self.database = database
        self.failureThreshold = failureThreshold
    }

    // MARK: Claiming

    /// Leases up to `limit` due targets whose lease is free or expired, the
    /// longest overdue first. SKIP LOCKED lets replicas claim side by side
    /// without waiting for, or taking, each other's rows.
    public func claimDue(owner: String, limit: Int, lease: Duration) throws -> [ClaimedTarget] {
        guard limit > 0 else { return [] }
        return try database.withConnection { connection in
            let rows = try connection.query("""
                UPDATE targets t
                SET lease_owner = \(owner), lease_until = now() + make_interval(secs => \(Self.seconds(lease)))
                WHERE t.id IN (
                    SELECT id FROM targets
                    WHERE interval_seconds IS NOT NULL AND next_check_at <= now()
                      AND (lease_until IS NULL OR lease_until < now())
                    ORDER BY next_check_at
                    LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                )
                RETURNING \(unsafeSQL: Self.targetColumns)
                """)
            return try Self.withWatches(try rows.map(Self.target(from:)), on: connection)
        }
    }

    /// Leases one target now, due or not (a check asked for through the
    /// API). Nil when another check holds it.
    public func claim(targetID: UUID, owner: String, lease: Duration) throws -> ClaimedTarget? {
        try database.withConnection { connection in
            let rows = try connection.query("""
                UPDATE targets t
                SET lease_owner = \(owner), lease_until = now() + make_interval(secs => \(Self.seconds(lease)))
                WHERE t.id = \(targetID) AND (t.lease_until IS NULL OR t.lease_until < now())
                RETURNING \(unsafeSQL: Self.targetColumns)
                """)
            return try Self.withWatches(try rows.map(Self.target(from:)), on: connection).first
        }
    }

    /// Gives leases back without checking (shutdown): the targets stay due
    /// and another replica, or this one after a restart, takes them.
    public func release(owner: String, targetIDs: [UUID]) throws {
        guard !targetIDs.isEmpty else { return }
        try database.withConnection { connection in
            _ = try connection.execute("""
                UPDATE targets SET lease_owner = NULL, lease_until = NULL
                WHERE lease_owner = \(owner) AND id = ANY(\(Self.uuidArray(targetIDs))::uuid[])
                """)
        }
    }

    /// The stored snapshots of watches, to diff a change against.
    public func snapshots(watchIDs: [UUID]) throws -> [UUID: String] {
        guard !watchIDs.isEmpty else { return [:] }
        let rows = try database.query("""
            SELECT id, snapshot FROM watches
            WHERE id = ANY(\(Self.uuidArray(watchIDs))::uuid[]) AND snapshot IS NOT NULL
            """)
        var snapshots: [UUID: String] = [:]
        for row in rows {
            snapshots[try row.decode("id")] = try row.decode("snapshot", as: String.self)
        }
        return snapshots
    }

    // MARK: Writing results

    /// Writes many quiet checks in two statements: each target's schedule,
    /// counters and lease, and the watches whose last result changed. Only
    /// targets this owner still holds are written.
    public func writeQuiet(owner: String, targets: [TargetCheckRecord], watches: [(watchID: UUID, result: CheckResult, checkedAt: Date)]) throws {
        guard !targets.isEmpty || !watches.isEmpty else { return }
        try database.withTransaction { connection in
            if !watches.isEmpty {
                let rows = watches.map { QuietWatchRow(id: $0.watchID, result: $0.result.rawValue, checkedAt: $0.checkedAt.timeIntervalSince1970) }
                _ = try connection.execute("""
                    UPDATE watches w
                    SET last_checked_at = to_timestamp(r.checked_at), last_check_result = r.result,
                        consecutive_failures = 0, last_error = NULL
                    FROM jsonb_to_recordset(\(try Self.json(rows))::jsonb) AS r(id uuid, result text, checked_at double precision)
                    WHERE w.id = r.id AND w.state = 'ok'
                      AND (w.last_check_result IS DISTINCT FROM r.result OR w.consecutive_failures <> 0
                           OR w.last_checked_at IS NULL)
                    """)
            }
            try Self.writeTargets(targets, owner: owner, on: connection)
        }
    }

    /// Writes one target's check in one transaction: every watch's new hash
    /// (through record_change: change row, unread counts, events), failure
    /// counts and state transitions with their events, then the target row.
    /// Watches are locked in (user_id, id) order, the order every writer of
    /// badges follows, and a deadlock or serialization failure retries the
    /// whole transaction.
    public func writeEventful(owner: String, target: TargetCheckRecord, watches: [WatchCheckRecord]) throws -> [WatchCheckResult] {
        var attempt = 0
        while true {
            do {
                return try database.withTransaction { connection in
                    let results = try writeWatches(watches, checkedAt: target.checkedAt, on: connection)
                    try Self.writeTargets([target], owner: owner, on: connection)
                    return results
                }
            } catch let error as PostgresError where error.isSerializationFailure && attempt < 5 {
                attempt += 1
            }
        }
    }

    private func writeWatches(_ records: [WatchCheckRecord], checkedAt: Date, on connection: PostgresConnection) throws -> [WatchCheckResult] {
        guard !records.isEmpty else { return [] }
        let byID = Dictionary(records.map { ($0.watch.id, $0) }, uniquingKeysWith: { first, _ in first })
        let locked = try connection.query("""
            SELECT id, state, content_hash, paused, consecutive_failures FROM watches
            WHERE id = ANY(\(Self.uuidArray(Array(byID.keys)))::uuid[])
            ORDER BY user_id, id
            FOR UPDATE
            """)
        var results: [WatchCheckResult] = []
        for row in locked {
            let id: UUID = try row.decode("id")
            guard let record = byID[id] else { continue }
            let current = LockedWatch(
                id: id,
                state: WatchState(rawValue: try row.decode("state")) ?? .pending,
                contentHash: try row.decode("content_hash"),
                paused: try row.decode("paused"),
                consecutiveFailures: try row.decode("consecutive_failures")
            )
            if let result = try write(record, over: current, checkedAt: checkedAt, on: connection) {
                results.append(result)
            }
        }
        return results
    }

    private struct LockedWatch {
        let id: UUID
        let state: WatchState
        let contentHash: String?
        let paused: Bool
        let consecutiveFailures: Int
    }

    private func write(_ record: WatchCheckRecord, over current: LockedWatch, checkedAt: Date, on connection: PostgresConnection) throws -> WatchCheckResult? {
        switch record.kind {
        case .content(let content):
            // No row: the extraction rule changed while the check ran; the
            // watch starts over from `pending` with the new rule.
            let rows = try connection.query("""
                SELECT record_change(id, \(content.hash), \(content.snapshot), \(content.snapshotTruncated), \(content.diff),
                                     \(content.httpStatus), \(content.contentLength)) AS change_id
                FROM watches WHERE id = \(current.id) AND extract IS NOT DISTINCT FROM \(record.watch.extractJSON)::jsonb
                """)
            guard let row = rows.first else { return nil }
            let changeID: UUID? = try row.decode("change_id")
            let result: CheckResult = current.contentHash == nil ? .baseline : (current.contentHash == content.hash ? .unchanged : .changed)
            try succeed(current, result: result, checkedAt: checkedAt, on: connection)
            return WatchCheckResult(watchID: current.id, result: result, changeID: changeID, state: .ok, error: nil)
        case .quiet(let result):
            try succeed(current, result: result, checkedAt: checkedAt, on: connection)
            return WatchCheckResult(watchID: current.id, result: result, changeID: nil, state: current.contentHash == nil ? current.state : .ok, error: nil)
        case .failed(let message):
            let failures = current.consecutiveFailures + 1
            let turnsFailing = failures >= failureThreshold && current.state != .failing && !current.paused
            let state: WatchState = turnsFailing ? .failing : current.state
            try connection.execute("""
                UPDATE watches
                SET consecutive_failures = \(failures), state = \(state.rawValue), last_error = \(message),
                    last_checked_at = \(checkedAt), last_check_result = 'failed'
                WHERE id = \(current.id)
                """)
            if turnsFailing { try announce("watch.failing", watchID: current.id, on: connection) }
            return WatchCheckResult(watchID: current.id, result: .failed, changeID: nil, state: state, error: message)
        }
    }

    /// A successful check: the watch is `ok` (a watch without a baseline
    /// stays `pending`), and a `failing` one announces its recovery once.
    private func succeed(_ current: LockedWatch, result: CheckResult, checkedAt: Date, on connection: PostgresConnection) throws {
        let hasBaseline = current.contentHash != nil || result == .baseline
        let state: WatchState = hasBaseline ? .ok : current.state
        try connection.execute("""
            UPDATE watches
            SET state = \(state.rawValue), consecutive_failures = 0, last_error = NULL,
                last_checked_at = \(checkedAt), last_check_result = \(result.rawValue)
            WHERE id = \(current.id)
            """)
        if current.state == .failing && state == .ok && !current.paused {
            try announce("watch.recovered", watchID: current.id, on: connection)
        }
    }

    /// Queues a watch event in the caller's transaction.
    private func announce(_ type: String, watchID: UUID, on connection: PostgresConnection) throws {
        try connection.execute("""
            SELECT enqueue_event(w.user_id, \(type), jsonb_build_object(
                'watch_id', w.id,
                'name', w.name,
                'url', t.url,
                'state', w.state,
                'consecutive_failures', w.consecutive_failures,
                'error', w.last_error,
                'checked_at', iso8601(w.last_checked_at)
            ))
            FROM watches w JOIN targets t ON t.id = w.target_id
            WHERE w.id = \(watchID)
            """)
    }

    private static func writeTargets(_ records: [TargetCheckRecord], owner: String, on connection: PostgresConnection) throws {
        guard !records.isEmpty else { return }
        let rows = records.map(TargetRow.init)
        try connection.execute("""
            UPDATE targets t
            SET next_check_at = to_timestamp(r.next_check_at),
                lease_owner = NULL, lease_until = NULL,
                last_checked_at = to_timestamp(r.checked_at),
                last_status = r.status,
                last_error = r.error,
                consecutive_failures = CASE WHEN r.error IS NULL THEN 0 ELSE t.consecutive_failures + 1 END,
                etag = CASE WHEN r.replace_validators THEN r.etag ELSE t.etag END,
                last_modified = CASE WHEN r.replace_validators THEN r.last_modified ELSE t.last_modified END,
                last_version = CASE WHEN r.replace_version THEN r.version ELSE t.last_version END,
                checks_since_full = CASE WHEN r.unconditional THEN 0 ELSE t.checks_since_full + 1 END,
                last_body_size = coalesce(r.body_size, t.last_body_size),
                request_count = t.request_count + r.requests,
                not_modified_count = t.not_modified_count + r.not_modified,
                bytes_received = t.bytes_received + r.bytes_received,
                bytes_saved = t.bytes_saved + r.bytes_saved
            FROM jsonb_to_recordset(\(try json(rows))::jsonb) AS r(
                id uuid, checked_at double precision, next_check_at double precision, status integer, error text,
                replace_validators boolean, etag text, last_modified text, replace_version boolean, version text,
                unconditional boolean, body_size bigint, requests bigint, not_modified bigint,
                bytes_received bigint, bytes_saved bigint)
            WHERE t.id = r.id AND t.lease_owner = \(owner)
            """)
    }

    // MARK: Rows

    private static let targetColumns = """
        t.id, t.url, t.headers::text AS headers, t.etag, t.last_modified, t.version_url, t.version_pointer,
        t.last_version, t.checks_since_full, t.interval_seconds, t.consecutive_failures, t.last_body_size
        """

    private static func target(from row: PostgresRow) throws -> ClaimedTarget {
        let headersText: String = try row.decode("headers")
        let headers = (try? JSONDecoder().decode([String: String].self, from: Data(headersText.utf8))) ?? [:]
        return ClaimedTarget(
            id: try row.decode("id"),
            url: try row.decode("url"),
            headers: headers,
            etag: try row.decode("etag"),
            lastModified: try row.decode("last_modified"),
            versionURL: try row.decode("version_url"),
            versionPointer: try row.decode("version_pointer"),
            lastVersion: try row.decode("last_version"),
            checksSinceFull: try row.decode("checks_since_full"),
            intervalSeconds: try row.decode("interval_seconds", as: Int?.self) ?? 300,
            consecutiveFailures: try row.decode("consecutive_failures"),
            lastBodySize: try row.decode("last_body_size"),
            watches: []
        )
    }

    private static func withWatches(_ targets: [ClaimedTarget], on connection: PostgresConnection) throws -> [ClaimedTarget] {
        guard !targets.isEmpty else { return [] }
        let rows = try connection.query("""
            SELECT id, user_id, target_id, extract::text AS extract, content_hash, state, paused
            FROM watches WHERE target_id = ANY(\(uuidArray(targets.map(\.id)))::uuid[])
            """)
        var byTarget: [UUID: [TargetWatch]] = [:]
        for row in rows {
            let extractJSON: String? = try row.decode("extract")
            let watch = TargetWatch(
                id: try row.decode("id"),
                userID: try row.decode("user_id"),
                extract: extractJSON.flatMap { try? JSONDecoder().decode(ExtractionRule.self, from: Data($0.utf8)) },
                extractJSON: extractJSON,
                contentHash: try row.decode("content_hash"),
                state: WatchState(rawValue: try row.decode("state")) ?? .pending,
                paused: try row.decode("paused")
            )
            byTarget[try row.decode("target_id"), default: []].append(watch)
        }
        return targets.map { target in
            var target = target
            target.watches = byTarget[target.id] ?? []
            return target
        }
    }

    /// A PostgreSQL array literal of UUIDs (their text has no characters
    /// that need quoting), bound as one parameter.
    private static func uuidArray(_ ids: [UUID]) -> String {
        "{" + ids.map(\.uuidString).joined(separator: ",") + "}"
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    private static let encoder = JSONEncoder()

    private static func json<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private struct QuietWatchRow: Encodable {
        let id: UUID
        let result: String
        let checkedAt: Double

        enum CodingKeys: String, CodingKey {
            case id, result
            case checkedAt = "checked_at"
        }
    }

    private struct TargetRow: Encodable {
        let id: UUID
        let checkedAt: Double
        let nextCheckAt: Double
        let status: Int?
        let error: String?
        let replaceValidators: Bool
        let etag: String?
        let lastModified: String?
        let replaceVersion: Bool
        let version: String?
        let unconditional: Bool
        let bodySize: Int?
        let requests: Int
        let notModified: Int
        let bytesReceived: Int
        let bytesSaved: Int

        init(_ record: TargetCheckRecord) {
            id = record.targetID
            checkedAt = record.checkedAt.timeIntervalSince1970
            nextCheckAt = record.nextCheckAt.timeIntervalSince1970
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
            unconditional = record.wasUnconditional
            bodySize = record.fullBodySize
            requests = record.requests
            notModified = record.notModified
            bytesReceived = record.bytesReceived
            bytesSaved = record.bytesSaved
        }

        enum CodingKeys: String, CodingKey {
            case id, status, error, etag, version, unconditional, requests
            case checkedAt = "checked_at"
            case nextCheckAt = "next_check_at"
            case replaceValidators = "replace_validators"
            case lastModified = "last_modified"
            case replaceVersion = "replace_version"
            case bodySize = "body_size"
            case notModified = "not_modified"
            case bytesReceived = "bytes_received"
            case bytesSaved = "bytes_saved"
        }

        /// Nulls are written out so jsonb_to_recordset sees every column.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(checkedAt, forKey: .checkedAt)
            try container.encode(nextCheckAt, forKey: .nextCheckAt)
            try container.encode(status, forKey: .status)
            try container.encode(error, forKey: .error)
            try container.encode(replaceValidators, forKey: .replaceValidators)
            try container.encode(etag, forKey: .etag)
            try container.encode(lastModified, forKey: .lastModified)
            try container.encode(replaceVersion, forKey: .replaceVersion)
            try container.encode(version, forKey: .version)
            try container.encode(unconditional, forKey: .unconditional)
            try container.encode(bodySize, forKey: .bodySize)
            try container.encode(requests, forKey: .requests)
            try container.encode(notModified, forKey: .notModified)
            try container.encode(bytesReceived, forKey: .bytesReceived)
            try container.encode(bytesSaved, forKey: .bytesSaved)
        }
    }
}
