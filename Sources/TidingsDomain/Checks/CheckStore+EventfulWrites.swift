import FoundationEssentials
import TidingsPostgres

/// Checks with something to record (content hashes, failure counts, state
/// transitions), for many targets in one transaction and a fixed number of
/// statements whatever the batch size: lock the watches, one
/// `record_changes` call (which decides baseline, unchanged or changed), one
/// UPDATE of the watches' check state, one `queue_events` call for the
/// `watch.failing`/`watch.recovered` events, one UPDATE of the targets.
extension CheckStore {
    /// Writes the checks in one transaction. Locks are taken watches by id,
    /// then badges by user (here, and again inside `record_changes`), the
    /// order every writer follows, then the targets,
    /// which only their lease holder writes; a deadlock or serialization
    /// failure retries the whole transaction.
    package func writeEventful(owner: String, checks: [TargetCheck]) throws -> [WatchCheckResult] {
        guard !checks.isEmpty else { return [] }
        return try database.withRetryingTransaction { connection in
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
            plan.recorded(try Self.recordChanges(plan.contents, on: connection))
            try Self.updateWatchStates(plan.states, on: connection)
            try Self.announce(plan.events, on: connection)
            try Self.writeTargets(checks.map(\.target), owner: owner, on: connection)
            return plan.results
        }
    }

    // MARK: Statements

    /// Locks the watches by id, then their users' badges by user: every
    /// event this write queues draws positions under a badge lock
    /// (migration 0031), and taking them all here, in order, keeps two
    /// batches from taking two users' badges in opposite orders.
    private static func lockWatches(_ ids: [UUID], on connection: PostgresConnection) throws -> [LockedWatch] {
        let rows = try connection.query("""
            SELECT id, state, content_hash, paused, consecutive_failures, extract::text AS extract FROM watches
            WHERE id = ANY(\(PostgresArray(ids))::uuid[])
            ORDER BY id
            FOR UPDATE
            """)
        try connection.execute("""
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
                extractJSON: try row.decode("extract")
            )
        }
    }

    /// One `record_changes` call for every hash of the batch, the columns
    /// as parallel array parameters; its result per watch.
    private static func recordChanges(_ contents: [ContentRow], on connection: PostgresConnection) throws -> [UUID: RecordedContent] {
        guard !contents.isEmpty else { return [:] }
        func column(_ value: (WatchCheckRecord.ContentRecord) -> String?) -> PostgresArray {
            PostgresArray(contents.map { value($0.content) })
        }
        let rows = try connection.query("""
            SELECT watch_id, result, change_id FROM record_changes(
                \(PostgresArray(contents.map(\.id)))::uuid[],
                \(column(\.hash))::text[], \(column(\.snapshot))::text[], \(column { String($0.snapshotTruncated) })::boolean[],
                \(column(\.diff))::text[], \(column { String($0.httpStatus) })::integer[],
                \(column { String($0.contentLength) })::bigint[])
            """)
        var recorded: [UUID: RecordedContent] = [:]
        for row in rows {
            let text: String = try row.decode("result")
            guard let result = CheckResult(rawValue: text) else {
                throw PostgresError(code: .decoding, message: "\(text.prefix(20)) is not a check result")
            }
            recorded[try row.decode("watch_id")] = RecordedContent(result: result, changeID: try row.decode("change_id"))
        }
        return recorded
    }

    private static func updateWatchStates(_ states: [StateRow], on connection: PostgresConnection) throws {
        guard !states.isEmpty else { return }
        try connection.execute("""
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
        try connection.execute("""
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
    /// `extract::text`, compared with the rule the check used.
    let extractJSON: String?
}

/// What the eventful write does for each locked watch, from the locked rows
/// and, for content, from what `record_changes` decided; written set-based.
private struct EventfulPlan {
    let failureThreshold: Int
    var contents: [ContentRow] = []
    /// The watches of `contents`, whose results `record_changes` decides.
    private var awaiting: [(watch: LockedWatch, checkedAt: Date)] = []
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
            awaiting.append((current, checkedAt))
        case .quiet(let result):
            let hasBaseline = current.contentHash != nil
            succeed(current, result: result, hasBaseline: hasBaseline, checkedAt: checkedAt)
            results.append(WatchCheckResult(watchID: current.id, result: result, changeID: nil, state: hasBaseline ? .ok : current.state, error: nil))
        case .failed(let message):
            let failures = current.consecutiveFailures + 1
            let turnsFailing = failures >= failureThreshold && current.state != .failing && !current.paused
            let state: WatchState = turnsFailing ? .failing : current.state
            states.append(StateRow(id: current.id, state: state.rawValue, failures: failures, error: message,
                                   checkedAt: checkedAt, result: CheckResult.failed.rawValue))
            // Emitted only on the transition, so once per failing spell.
            if turnsFailing { events.append(EventRow(id: current.id, type: .watchFailing)) }
            results.append(WatchCheckResult(watchID: current.id, result: .failed, changeID: nil, state: state, error: message))
        }
    }

    /// The content's results, as `record_changes` decided them. Every watch
    /// of `contents` is locked, so it is there.
    mutating func recorded(_ recorded: [UUID: RecordedContent]) {
        for (current, checkedAt) in awaiting {
            guard let content = recorded[current.id] else { continue }
            succeed(current, result: content.result, hasBaseline: true, checkedAt: checkedAt)
            results.append(WatchCheckResult(watchID: current.id, result: content.result, changeID: content.changeID, state: .ok, error: nil))
        }
        awaiting = []
    }

    /// A successful check: the watch is `ok` (one without a baseline stays
    /// as it is), and a `failing` one announces its recovery once.
    private mutating func succeed(_ current: LockedWatch, result: CheckResult, hasBaseline: Bool, checkedAt: Date) {
        let state: WatchState = hasBaseline ? .ok : current.state
        states.append(StateRow(id: current.id, state: state.rawValue, failures: 0, error: nil,
                               checkedAt: checkedAt, result: result.rawValue))
        if current.state == .failing && state == .ok && !current.paused {
            events.append(EventRow(id: current.id, type: .watchRecovered))
        }
    }
}

private struct ContentRow {
    let id: UUID
    let content: WatchCheckRecord.ContentRecord
}

/// What `record_changes` decided for a watch's content.
private struct RecordedContent {
    let result: CheckResult
    let changeID: UUID?
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
