import FoundationEssentials
import TidingsPostgres

/// Checks with something to record (content hashes, failure counts, state
/// transitions), for many targets in one transaction and a fixed number of
/// statements whatever the batch size: lock the watches (reading the
/// snapshots a change is diffed against), decide in `EventfulPlan`, then
/// plain writers: one `record_changes` call, one UPDATE of the watches'
/// check state, one `queue_events` call for the
/// `watch.failing`/`watch.recovered` events, one UPDATE of the targets.
/// The plan is the one judge of baseline, unchanged and changed
/// (decision 0049).
extension CheckStore {
    /// Writes the checks in one transaction. Locks are taken once: watches
    /// by id, then badges by user, the order every writer follows, then the
    /// targets, which only their lease holder writes; a deadlock or
    /// serialization failure retries the whole transaction. `diff` makes a
    /// change's unified diff from the stored snapshot the lock read and the
    /// new one.
    package func writeEventful(
        owner: String, checks: [TargetCheck], diff: (_ previous: String, _ current: String) -> String
    ) throws -> [WatchCheckResult] {
        guard !checks.isEmpty else { return [] }
        return try database.withRetryingTransaction { connection in
            var pending: [UUID: (record: WatchCheckRecord, checkedAt: Date)] = [:]
            for check in checks {
                for record in check.watches where pending[record.watch.id] == nil {
                    pending[record.watch.id] = (record, check.target.checkedAt)
                }
            }
            var plan = EventfulPlan(failureThreshold: failureThreshold)
            for current in try Self.lockWatches(pending.mapValues(\.record), on: connection) {
                guard let (record, checkedAt) = pending[current.id] else { continue }
                plan.add(record, over: current, checkedAt: checkedAt, diff: diff)
            }
            plan.recorded(try Self.recordChanges(plan.contents, on: connection))
            try Self.updateWatchStates(plan.states, on: connection)
            try Self.announce(plan.events, on: connection)
            try Self.writeTargets(checks.map(\.target), owner: owner, holdGrace: holdGrace, on: connection)
            return plan.results
        }
    }

    // MARK: Statements

    /// Locks the watches by id, then their users' badges by user: every
    /// event this write queues draws positions under a badge lock
    /// (draw_positions), and taking them all here, in order, keeps two
    /// batches from taking two users' badges in opposite orders. A watch
    /// whose stored hash differs from the content checked comes with its
    /// stored snapshot, to diff against.
    private static func lockWatches(_ records: [UUID: WatchCheckRecord], on connection: PostgresConnection) throws -> [LockedWatch] {
        let ids = Array(records.keys)
        let hashes = ids.map { id -> String? in
            guard case .content(let content) = records[id]?.kind else { return nil }
            return content.hash
        }
        let rows = try connection.query(
            """
            SELECT w.id, w.state, w.content_hash, w.paused, w.consecutive_failures, w.quiet_rebaseline,
                   w.extract::text AS extract,
                   CASE WHEN i.hash IS NOT NULL AND w.content_hash IS DISTINCT FROM i.hash THEN w.snapshot END AS snapshot
            FROM watches w JOIN unnest(\(PostgresArray(ids))::uuid[], \(PostgresArray(hashes))::text[]) AS i(id, hash) ON i.id = w.id
            ORDER BY w.id
            FOR UPDATE OF w
            """)
        try connection.execute(
            """
            SELECT 1 FROM badges
            WHERE user_id IN (SELECT user_id FROM watches WHERE id = ANY(\(PostgresArray(ids))::uuid[]))
            ORDER BY user_id
            FOR UPDATE
            """)
        return try rows.map { row in
            LockedWatch(
                id: try row.decode("id"),
                state: WatchState(rawValue: try row.decode("state")) ?? .pending,
                contentHash: try row.decode("content_hash"),
                paused: try row.decode("paused"),
                consecutiveFailures: try row.decode("consecutive_failures"),
                quietRebaseline: try row.decode("quiet_rebaseline"),
                extractJSON: try row.decode("extract"),
                snapshot: try row.decode("snapshot")
            )
        }
    }

    /// One `record_changes` call for every content of the batch, with the
    /// result the plan decided, the columns as parallel array parameters;
    /// the change it recorded per watch.
    private static func recordChanges(_ contents: [ContentRow], on connection: PostgresConnection) throws -> [UUID: UUID] {
        guard !contents.isEmpty else { return [:] }
        func column<Value: PostgresEncodable>(_ value: (ContentRow) -> Value) -> PostgresArray {
            PostgresArray(contents.map(value))
        }
        let rows = try connection.query(
            """
            SELECT watch_id, change_id FROM record_changes(
                \(column(\.id))::uuid[], \(column(\.result.rawValue))::text[],
                \(column(\.content.hash))::text[], \(column(\.content.snapshot))::text[],
                \(column(\.content.snapshotTruncated))::boolean[], \(column(\.diff))::text[],
                \(column(\.content.httpStatus))::integer[], \(column(\.content.contentLength))::bigint[])
            """)
        var recorded: [UUID: UUID] = [:]
        for row in rows {
            recorded[try row.decode("watch_id")] = try row.decode("change_id")
        }
        return recorded
    }

    private static func updateWatchStates(_ states: [StateRow], on connection: PostgresConnection) throws {
        guard !states.isEmpty else { return }
        try connection.execute(
            """
            UPDATE watches w
            SET state = r.state, consecutive_failures = r.failures, last_error = r.error,
                last_checked_at = r.checked_at, last_check_result = r.result
            FROM unnest(\(PostgresArray(states.map(\.id)))::uuid[], \(PostgresArray(states.map(\.state)))::text[],
                        \(PostgresArray(states.map(\.failures)))::integer[], \(PostgresArray(states.map(\.error)))::text[],
                        \(PostgresArray(states.map(\.checkedAt)))::timestamptz[], \(PostgresArray(states.map(\.result)))::text[]
            ) AS r(id, state, failures, error, checked_at, result)
            WHERE w.id = r.id
            """)
    }

    /// Queues the watches' state events, after their new state is written
    /// (the events carry it).
    private static func announce(_ events: [EventRow], on connection: PostgresConnection) throws {
        guard !events.isEmpty else { return }
        try connection.execute(
            """
            SELECT 1 FROM queue_events((
                SELECT array_agg(ROW(w.user_id, e.type, jsonb_build_object(
                    'watch_id', w.id,
                    'name', w.name,
                    'url', t.url,
                    'state', w.state,
                    'consecutive_failures', w.consecutive_failures,
                    'error', w.last_error,
                    'checked_at', iso8601(w.last_checked_at)
                ), NULL, NULL)::outbox_event ORDER BY w.id)
                FROM unnest(\(PostgresArray(events.map(\.id)))::uuid[], \(PostgresArray(events.map(\.type.rawValue)))::text[])
                    AS e(id, type)
                JOIN watches w ON w.id = e.id
                JOIN targets t ON t.id = w.target_id
            ))
            """)
    }
}

/// A watch as locked by the eventful write.
private struct LockedWatch {
    let id: UUID
    let state: WatchState
    let contentHash: String?
    let paused: Bool
    let consecutiveFailures: Int
    let quietRebaseline: Bool
    /// `extract::text`, compared with the rule the check used.
    let extractJSON: String?
    /// The stored snapshot, read only when the content checked has another hash.
    let snapshot: String?
}

/// What the eventful write does for each locked watch, decided from the
/// locked rows alone (the one judge of baseline, unchanged and changed);
/// written set-based.
private struct EventfulPlan {
    let failureThreshold: Int
    var contents: [ContentRow] = []
    /// The watches of `contents`, whose changes `record_changes` records.
    private var awaiting: [(watch: LockedWatch, result: CheckResult, checkedAt: Date)] = []
    var states: [StateRow] = []
    var events: [EventRow] = []
    var results: [WatchCheckResult] = []

    init(failureThreshold: Int) {
        self.failureThreshold = failureThreshold
    }

    mutating func add(
        _ record: WatchCheckRecord, over current: LockedWatch, checkedAt: Date, diff: (String, String) -> String
    ) {
        switch record.kind {
        case .content(let content):
            // The extraction rule changed while the check ran: nothing is
            // written; the watch starts over from `pending` with the new rule.
            guard current.extractJSON == record.watch.extractJSON else { return }
            let result: CheckResult
            if current.contentHash == content.hash {
                result = .unchanged
            } else if current.contentHash == nil || current.quietRebaseline {
                result = .baseline
            } else {
                result = .changed
            }
            let changeDiff = result == .changed && !current.paused ? current.snapshot.map { diff($0, content.snapshot) } ?? "" : ""
            contents.append(ContentRow(id: current.id, result: result, content: content, diff: changeDiff))
            awaiting.append((current, result, checkedAt))
        case .quiet(let result):
            let hasBaseline = current.contentHash != nil
            succeed(current, result: result, hasBaseline: hasBaseline, checkedAt: checkedAt)
            results.append(
                WatchCheckResult(watchID: current.id, result: result, changeID: nil, state: hasBaseline ? .ok : current.state, error: nil))
        case .failed(let message):
            let failures = current.consecutiveFailures + 1
            let turnsFailing = failures >= failureThreshold && current.state != .failing && !current.paused
            let state: WatchState = turnsFailing ? .failing : current.state
            states.append(
                StateRow(
                    id: current.id, state: state.rawValue, failures: failures, error: message,
                    checkedAt: checkedAt, result: CheckResult.failed.rawValue))
            // Emitted only on the transition, so once per failing spell.
            if turnsFailing { events.append(EventRow(id: current.id, type: .watchFailing)) }
            results.append(WatchCheckResult(watchID: current.id, result: .failed, changeID: nil, state: state, error: message))
        }
    }

    /// The content's results, with the changes `record_changes` recorded.
    mutating func recorded(_ changes: [UUID: UUID]) {
        for (current, result, checkedAt) in awaiting {
            succeed(current, result: result, hasBaseline: true, checkedAt: checkedAt)
            results.append(WatchCheckResult(watchID: current.id, result: result, changeID: changes[current.id], state: .ok, error: nil))
        }
        awaiting = []
    }

    /// A successful check: the watch is `ok` (one without a baseline stays
    /// as it is), and a `failing` one announces its recovery once.
    private mutating func succeed(_ current: LockedWatch, result: CheckResult, hasBaseline: Bool, checkedAt: Date) {
        let state: WatchState = hasBaseline ? .ok : current.state
        states.append(
            StateRow(
                id: current.id, state: state.rawValue, failures: 0, error: nil,
                checkedAt: checkedAt, result: result.rawValue))
        if current.state == .failing && state == .ok && !current.paused {
            events.append(EventRow(id: current.id, type: .watchRecovered))
        }
    }
}

private struct ContentRow {
    let id: UUID
    let result: CheckResult
    let content: WatchCheckRecord.ContentRecord
    /// The unified diff from the stored snapshot, for a change recorded.
    let diff: String
}

private struct StateRow {
    let id: UUID
    let state: String
    let failures: Int
    let error: String?
    let checkedAt: Date
    let result: String
}

private struct EventRow {
    let id: UUID
    let type: WebhookEventType
}
