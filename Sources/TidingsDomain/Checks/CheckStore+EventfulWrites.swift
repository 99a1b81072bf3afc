import FoundationEssentials
import TidingsPostgres

/// Checks with something to record (content hashes, failure counts, state
/// transitions), for many targets in one transaction and a fixed number of
/// statements whatever the batch size: lock the watches, one
/// `record_changes` call, one UPDATE of the watches' check state, one
/// statement for the `watch.failing`/`watch.recovered` events, one UPDATE of
/// the targets.
extension CheckStore {
    /// Writes the checks in one transaction. Locks are taken watches by id
    /// (here, and again inside `record_changes`), then badges by user (inside
    /// `record_changes`), the order every writer follows, then the targets,
    /// which only their lease holder writes; a deadlock or serialization
    /// failure retries the whole transaction.
    public func writeEventful(owner: String, checks: [TargetCheck]) throws -> [WatchCheckResult] {
        guard !checks.isEmpty else { return [] }
        return try retryingTransaction { connection in
            var pending: [UUID: (record: WatchCheckRecord, checkedAt: Date)] = [:]
            for check in checks {
                for record in check.watches where pending[record.watch.id] == nil {
                    pending[record.watch.id] = (record, check.target.checkedAt)
                }
            }
            var plan = EventfulPlan(failureThreshold: failureThreshold)
            for current in try Self.lockWatches(Array(pending.keys), on: connection) {
                guard let (record, checkedAt) = pending[current.id] else { continue }
                plan.add(record, over: current, checkedAt: checkedAt)
            }
            let changeIDs = try Self.recordChanges(plan.contents, on: connection)
            try Self.updateWatchStates(plan.states, on: connection)
            try Self.announce(plan.events, on: connection)
            try Self.writeTargets(checks.map(\.target), owner: owner, on: connection)
            return plan.results.map { result in
                guard let changeID = changeIDs[result.watchID] else { return result }
                return WatchCheckResult(watchID: result.watchID, result: result.result, changeID: changeID, state: result.state, error: result.error)
            }
        }
    }

    /// Runs `body` in a transaction, again (up to five times) after a
    /// deadlock or serialization failure.
    func retryingTransaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                return try database.withTransaction(body)
            } catch let error as PostgresError where error.isSerializationFailure && attempt < 5 {
                attempt += 1
            }
        }
    }

    // MARK: Statements

    private static func lockWatches(_ ids: [UUID], on connection: PostgresConnection) throws -> [LockedWatch] {
        let rows = try connection.query("""
            SELECT id, state, content_hash, paused, consecutive_failures, extract::text AS extract FROM watches
            WHERE id = ANY(\(PostgresArrayLiteral.make(ids))::uuid[])
            ORDER BY id
            FOR UPDATE
            """)
        return try rows.map { row in
            LockedWatch(
                id: try row.decode("id"),
                state: WatchState(rawValue: try row.decode("state")) ?? .pending,
                contentHash: try row.decode("content_hash"),
                paused: try row.decode("paused"),
                consecutiveFailures: try row.decode("consecutive_failures"),
                extractJSON: try row.decode("extract")
            )
        }
    }

    /// One `record_changes` call for every hash of the batch: the arrays are
    /// built in SQL from one JSON parameter, in watch id order.
    private static func recordChanges(_ contents: [ContentRow], on connection: PostgresConnection) throws -> [UUID: UUID] {
        guard !contents.isEmpty else { return [:] }
        let rows = try connection.query("""
            SELECT c.watch_id, c.change_id
            FROM (
                SELECT array_agg(r.id ORDER BY r.id) AS ids, array_agg(r.hash ORDER BY r.id) AS hashes,
                       array_agg(r.snapshot ORDER BY r.id) AS snapshots, array_agg(r.truncated ORDER BY r.id) AS truncated,
                       array_agg(r.diff ORDER BY r.id) AS diffs, array_agg(r.status ORDER BY r.id) AS statuses,
                       array_agg(r.length ORDER BY r.id) AS lengths
                FROM jsonb_to_recordset(\(JSONRows.text(contents))::jsonb) AS r(
                    id uuid, hash text, snapshot text, truncated boolean, diff text, status integer, length bigint)
            ) a
            CROSS JOIN LATERAL record_changes(a.ids, a.hashes, a.snapshots, a.truncated, a.diffs, a.statuses, a.lengths) c
            """)
        var changes: [UUID: UUID] = [:]
        for row in rows {
            changes[try row.decode("watch_id")] = try row.decode("change_id")
        }
        return changes
    }

    private static func updateWatchStates(_ states: [StateRow], on connection: PostgresConnection) throws {
        guard !states.isEmpty else { return }
        try connection.execute("""
            UPDATE watches w
            SET state = r.state, consecutive_failures = r.failures, last_error = r.error,
                last_checked_at = to_timestamp(r.checked_at), last_check_result = r.result
            FROM jsonb_to_recordset(\(JSONRows.text(states))::jsonb) AS r(
                id uuid, state text, failures integer, error text, checked_at double precision, result text)
            WHERE w.id = r.id
            """)
    }

    /// Queues the watches' state events, after their new state is written
    /// (the events carry it).
    private static func announce(_ events: [EventRow], on connection: PostgresConnection) throws {
        guard !events.isEmpty else { return }
        try connection.execute("""
            SELECT enqueue_event(w.user_id, e.type, jsonb_build_object(
                'watch_id', w.id,
                'name', w.name,
                'url', t.url,
                'state', w.state,
                'consecutive_failures', w.consecutive_failures,
                'error', w.last_error,
                'checked_at', iso8601(w.last_checked_at)
            ))
            FROM jsonb_to_recordset(\(JSONRows.text(events))::jsonb) AS e(id uuid, type text)
            JOIN watches w ON w.id = e.id
            JOIN targets t ON t.id = w.target_id
            ORDER BY w.id
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
    /// `extract::text`, compared with the rule the check used.
    let extractJSON: String?
}

/// What the eventful write does for each locked watch, decided in Swift
/// from the locked rows and written set-based.
private struct EventfulPlan {
    let failureThreshold: Int
    var contents: [ContentRow] = []
    var states: [StateRow] = []
    var events: [EventRow] = []
    var results: [WatchCheckResult] = []

    init(failureThreshold: Int) {
        self.failureThreshold = failureThreshold
    }

    mutating func add(_ record: WatchCheckRecord, over current: LockedWatch, checkedAt: Date) {
        switch record.kind {
        case .content(let content):
            // The extraction rule changed while the check ran: nothing is
            // written; the watch starts over from `pending` with the new rule.
            guard current.extractJSON == record.watch.extractJSON else { return }
            contents.append(ContentRow(id: current.id, content: content))
            let result: CheckResult = current.contentHash == nil ? .baseline : (current.contentHash == content.hash ? .unchanged : .changed)
            succeed(current, result: result, hasBaseline: true, checkedAt: checkedAt)
            results.append(WatchCheckResult(watchID: current.id, result: result, changeID: nil, state: .ok, error: nil))
        case .quiet(let result):
            let hasBaseline = current.contentHash != nil
            succeed(current, result: result, hasBaseline: hasBaseline, checkedAt: checkedAt)
            results.append(WatchCheckResult(watchID: current.id, result: result, changeID: nil, state: hasBaseline ? .ok : current.state, error: nil))
        case .failed(let message):
            let failures = current.consecutiveFailures + 1
            let turnsFailing = failures >= failureThreshold && current.state != .failing && !current.paused
            let state: WatchState = turnsFailing ? .failing : current.state
            states.append(StateRow(id: current.id, state: state.rawValue, failures: failures, error: message,
                                   checkedAt: checkedAt.timeIntervalSince1970, result: CheckResult.failed.rawValue))
            // Emitted only on the transition, so once per failing spell.
            if turnsFailing { events.append(EventRow(id: current.id, type: "watch.failing")) }
            results.append(WatchCheckResult(watchID: current.id, result: .failed, changeID: nil, state: state, error: message))
        }
    }

    /// A successful check: the watch is `ok` (one without a baseline stays
    /// as it is), and a `failing` one announces its recovery once.
    private mutating func succeed(_ current: LockedWatch, result: CheckResult, hasBaseline: Bool, checkedAt: Date) {
        let state: WatchState = hasBaseline ? .ok : current.state
        states.append(StateRow(id: current.id, state: state.rawValue, failures: 0, error: nil,
                               checkedAt: checkedAt.timeIntervalSince1970, result: result.rawValue))
        if current.state == .failing && state == .ok && !current.paused {
            events.append(EventRow(id: current.id, type: "watch.recovered"))
        }
    }
}

private struct ContentRow: JSONRow {
    let id: UUID
    let content: WatchCheckRecord.ContentRecord

    func write(to row: inout JSONRows.Row) {
        row.field("id", id)
        row.field("hash", content.hash)
        row.field("snapshot", content.snapshot)
        row.field("truncated", content.snapshotTruncated)
        row.field("diff", content.diff)
        row.field("status", content.httpStatus)
        row.field("length", content.contentLength)
    }
}

private struct StateRow: JSONRow {
    let id: UUID
    let state: String
    let failures: Int
    let error: String?
    let checkedAt: Double
    let result: String

    func write(to row: inout JSONRows.Row) {
        row.field("id", id)
        row.field("state", state)
        row.field("failures", failures)
        row.field("error", error)
        row.field("checked_at", checkedAt)
        row.field("result", result)
    }
}

private struct EventRow: JSONRow {
    let id: UUID
    let type: String

    func write(to row: inout JSONRows.Row) {
        row.field("id", id)
        row.field("type", type)
    }
}
