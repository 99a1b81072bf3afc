package import FoundationEssentials
import TidingsPostgres

/// Imports: many watches in one transaction, a few statements in all
/// (decision 0055). The same triggers as for one create hold: targets are
/// shared and kept in step with their watches, and the watch quota counts
/// the whole batch at once (migration 0035), so an import over the limit
/// fails whole.
extension WatchStore {
    /// Creates a watch for each of `batch` that the user does not have yet
    /// (a watch of the same target with the same rule), all or nothing.
    /// Throws `UserLimitExceeded` past the quota and `RulesPerTargetExceeded`
    /// when a target would carry too many distinct rules.
    ///
    /// `dryRun`: everything is done and then rolled back, so the answer is
    /// exactly what the import would do (quota and rule limits included).
    /// `dueNow`: new targets are due now for their baselines, as for `create`.
    package func importWatches(userID: UUID, _ batch: [WatchSettings], dueNow: Bool, dryRun: Bool) throws -> WatchImportResult {
        let rows = try batch.enumerated().map { try ImportRow(settings: $1, position: $0, secrets: secrets) }
        // A file may name one watch twice: the first creates it.
        var seen: Set<String> = []
        let unique = rows.filter { seen.insert($0.key).inserted }
        do {
            return try UserLimitExceeded.mapping(.watches) {
                try database.withRetryingTransaction(foreignKeyRaces: true) { connection in
                    let result = try importRows(unique, userID: userID, dueNow: dueNow, on: connection)
                    let outcome = WatchImportResult(created: result, existing: rows.count - result.count)
                    if dryRun { throw DryRunRollback(result: outcome) }
                    return outcome
                }
            }
        } catch let rollback as DryRunRollback {
            return rollback.result
        }
    }

    /// Thrown to roll a dry run's transaction back with its answer.
    private struct DryRunRollback: Error {
        let result: WatchImportResult
    }

    private func importRows(_ rows: [ImportRow], userID: UUID, dueNow: Bool, on connection: PostgresConnection) throws -> [Watch] {
        // Imports of one user take turns, so two imports of one file
        // cannot both find its watches missing.
        _ = try connection.query("SELECT id FROM users WHERE id = \(userID) FOR NO KEY UPDATE")
        let all = ImportColumns(rows)
        let existing = Set(
            try connection.query(
                """
                SELECT x.position
                FROM unnest(\(all.position)::int[], \(all.url)::text[], \(all.fingerprint)::text[], \(all.versionURL)::text[],
                            \(all.versionPointer)::text[], \(all.extract)::text[])
                    AS x(position, url, fingerprint, version_url, version_pointer, extract)
                WHERE EXISTS (
                    SELECT 1 FROM target_identities i JOIN watches w ON w.target_id = i.target_id
                    WHERE i.url = x.url AND i.headers_fingerprint = x.fingerprint
                      AND i.version_url IS NOT DISTINCT FROM x.version_url AND i.version_pointer IS NOT DISTINCT FROM x.version_pointer
                      AND w.user_id = \(userID) AND w.extract IS NOT DISTINCT FROM x.extract::jsonb)
                """
            ).map { try $0.decode("position", as: Int.self) })
        let new = rows.filter { !existing.contains($0.position) }
        guard !new.isEmpty else { return [] }
        let batch = ImportColumns(new)
        // Targets that exist: locked in id order, then made ready for a
        // baseline as `attachTarget` does for one watch.
        try connection.execute(
            """
            UPDATE targets t
            SET etag = NULL, last_modified = NULL, last_version = NULL,
                next_check_at = CASE WHEN \(dueNow) THEN least(t.next_check_at, now()) ELSE t.next_check_at END
            WHERE t.id IN (
                SELECT l.id FROM targets l
                WHERE l.id IN (
                    SELECT i.target_id
                    FROM unnest(\(batch.url)::text[], \(batch.fingerprint)::text[], \(batch.versionURL)::text[],
                                \(batch.versionPointer)::text[]) AS x(url, fingerprint, version_url, version_pointer)
                    JOIN target_identities i ON i.url = x.url AND i.headers_fingerprint = x.fingerprint
                     AND i.version_url IS NOT DISTINCT FROM x.version_url AND i.version_pointer IS NOT DISTINCT FROM x.version_pointer)
                ORDER BY l.id
                FOR UPDATE)
            """)
        // Targets that do not: identities first, as `attachTarget` does, so
        // a concurrent creator of the same target waits and finds this one.
        try connection.execute(
            """
            WITH input AS (
                SELECT DISTINCT ON (url, fingerprint, version_url, version_pointer) *
                FROM unnest(\(batch.url)::text[], \(batch.fingerprint)::text[], \(batch.versionURL)::text[],
                            \(batch.versionPointer)::text[], \(batch.headers)::text[], \(batch.versionHeaders)::text[])
                    AS x(url, fingerprint, version_url, version_pointer, headers, version_headers)
                ORDER BY url, fingerprint, version_url, version_pointer
            ), identity AS (
                INSERT INTO target_identities (target_id, url, headers_fingerprint, version_url, version_pointer)
                SELECT gen_random_uuid(), url, fingerprint, version_url, version_pointer FROM input
                ON CONFLICT ON CONSTRAINT target_identities_key DO NOTHING
                RETURNING target_id, url, headers_fingerprint, version_url, version_pointer
            )
            INSERT INTO targets (id, url, headers, headers_fingerprint, secrets_sealed, version_url, version_pointer, version_headers,
                                 next_check_at)
            SELECT i.target_id, i.url, x.headers::jsonb, i.headers_fingerprint, true, i.version_url, i.version_pointer,
                   x.version_headers::jsonb,
                   -- Not due now: the watches trigger brings it to an interval from now.
                   CASE WHEN \(dueNow) THEN now() ELSE 'infinity'::timestamptz END
            FROM identity i JOIN input x ON x.url = i.url AND x.fingerprint = i.headers_fingerprint
             AND x.version_url IS NOT DISTINCT FROM i.version_url AND x.version_pointer IS NOT DISTINCT FROM i.version_pointer
            """)
        let inserted = try connection.query(
            """
            INSERT INTO watches (user_id, target_id, name, interval_seconds, max_interval_seconds, max_interval_chosen,
                                 extract, paused, notify)
            SELECT \(userID), i.target_id, x.name, x.interval_seconds, x.max_interval_seconds, x.max_interval_chosen,
                   x.extract::jsonb, x.paused, x.notify
            FROM unnest(\(batch.position)::int[], \(batch.url)::text[], \(batch.fingerprint)::text[], \(batch.versionURL)::text[],
                        \(batch.versionPointer)::text[], \(batch.name)::text[], \(batch.intervalSeconds)::int[],
                        \(batch.maxIntervalSeconds)::int[], \(batch.maxIntervalChosen)::boolean[], \(batch.extract)::text[],
                        \(batch.paused)::boolean[], \(batch.notify)::text[])
                AS x(position, url, fingerprint, version_url, version_pointer, name, interval_seconds, max_interval_seconds,
                     max_interval_chosen, extract, paused, notify)
            JOIN target_identities i ON i.url = x.url AND i.headers_fingerprint = x.fingerprint
             AND i.version_url IS NOT DISTINCT FROM x.version_url AND i.version_pointer IS NOT DISTINCT FROM x.version_pointer
            ORDER BY x.position
            RETURNING id, target_id
            """)
        guard inserted.count == new.count else {
            // A target went with its last watch between the statements.
            throw PostgresError(code: .noRow, message: "\(new.count - inserted.count) imported targets were deleted meanwhile")
        }
        let ids = try inserted.map { try $0.decode("id", as: UUID.self) }
        let targets = Set(try inserted.map { try $0.decode("target_id", as: UUID.self) })
        // The targets are locked (the watches trigger locked each one).
        if try connection.query(
            """
            SELECT target_id FROM watches WHERE target_id = ANY(\(PostgresArray(Array(targets)))::uuid[])
            GROUP BY target_id HAVING count(DISTINCT coalesce(extract, 'null'::jsonb)) > \(maxRulesPerTarget) LIMIT 1
            """
        ).first != nil {
            throw RulesPerTargetExceeded(maximum: maxRulesPerTarget)
        }
        var watches = [UUID: Watch](minimumCapacity: ids.count)
        for row in try connection.query(
            """
            \(unsafeSQL: Self.selectWatch) WHERE w.id = ANY(\(PostgresArray(ids))::uuid[]) AND w.user_id = \(userID)
            """)
        {
            let watch = try Self.watch(from: row)
            watches[watch.id] = watch
        }
        return ids.compactMap { watches[$0] }
    }
}

/// One watch to import as a row of the batch, with the identity of
/// its target (the keyed fingerprint of its plain header values) and its
/// header values sealed.
private struct ImportRow {
    let position: Int
    let settings: WatchSettings
    let fingerprint: String
    let sealedHeaders: String
    let sealedVersionHeaders: String
    let extract: String?
    /// Equal for two entries that would make the same watch.
    let key: String

    init(settings: WatchSettings, position: Int, secrets: StoredSecrets) throws {
        self.position = position
        self.settings = settings
        let versionHeaders = settings.versionCheck?.headers ?? .none
        fingerprint = secrets.fingerprint(settings.headers, versionHeaders: versionHeaders)
        sealedHeaders = try WatchStore.headersJSON(secrets.sealHeaders(settings.headers.fields))
        sealedVersionHeaders = try WatchStore.headersJSON(secrets.sealHeaders(versionHeaders.fields, in: .versionHeaders))
        extract = try WatchStore.extractJSON(settings.extract)
        key = [settings.url.text, fingerprint, settings.versionCheck?.url.text ?? "", settings.versionCheck?.pointer ?? "", extract ?? ""]
            .joined(separator: "\u{0}")
    }
}

/// The rows of an import batch as parallel arrays, one per column, read
/// with `unnest` (`PostgresArray`, the one way batches reach SQL).
private struct ImportColumns {
    let position: PostgresArray
    let url: PostgresArray
    let fingerprint: PostgresArray
    let versionURL: PostgresArray
    let versionPointer: PostgresArray
    let headers: PostgresArray
    let versionHeaders: PostgresArray
    let name: PostgresArray
    let intervalSeconds: PostgresArray
    let maxIntervalSeconds: PostgresArray
    let maxIntervalChosen: PostgresArray
    let extract: PostgresArray
    let paused: PostgresArray
    let notify: PostgresArray

    init(_ rows: [ImportRow]) {
        position = PostgresArray(rows.map(\.position))
        url = PostgresArray(rows.map(\.settings.url.text))
        fingerprint = PostgresArray(rows.map(\.fingerprint))
        versionURL = PostgresArray(rows.map { $0.settings.versionCheck?.url.text })
        versionPointer = PostgresArray(rows.map { $0.settings.versionCheck?.pointer })
        headers = PostgresArray(rows.map(\.sealedHeaders))
        versionHeaders = PostgresArray(rows.map(\.sealedVersionHeaders))
        name = PostgresArray(rows.map(\.settings.name))
        intervalSeconds = PostgresArray(rows.map(\.settings.intervalSeconds))
        maxIntervalSeconds = PostgresArray(rows.map(\.settings.maxIntervalSeconds))
        maxIntervalChosen = PostgresArray(rows.map(\.settings.maxIntervalChosen))
        extract = PostgresArray(rows.map(\.extract))
        paused = PostgresArray(rows.map(\.settings.paused))
        notify = PostgresArray(rows.map(\.settings.notify.rawValue))
    }
}
