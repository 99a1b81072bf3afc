import FoundationEssentials
import TidingsPostgres

/// Row mapping and the JSON stored in `jsonb` columns.
extension WatchStore {
    /// Selects what a `Watch` shows. Header values are never read: only the
    /// object's keys, as a JSON array.
    static let selectWatch = """
        SELECT w.id, w.user_id, w.target_id, t.url, w.name, w.interval_seconds, w.max_interval_seconds,
               CASE WHEN NOT w.paused AND t.interval_seconds IS NOT NULL THEN t.next_check_at END AS next_check_at,
               t.version_url, t.version_pointer,
               w.extract::text AS extract,
               (SELECT coalesce(jsonb_agg(name ORDER BY name), '[]'::jsonb) FROM jsonb_object_keys(t.headers) AS name)::text
                   AS header_names,
               (SELECT coalesce(jsonb_agg(name ORDER BY name), '[]'::jsonb) FROM jsonb_object_keys(t.version_headers) AS name)::text
                   AS version_header_names,
               w.paused, w.notify, w.state,
               -- A check of the target checks all its watches; quiet checks
               -- (304, unchanged) only write the target (batched).
               CASE WHEN w.last_checked_at IS NOT NULL THEN greatest(w.last_checked_at, t.last_checked_at) END
                   AS last_checked_at,
               w.last_check_result, w.last_changed_at, w.content_hash,
               w.unread_count, w.consecutive_failures, w.last_error, w.created_at, w.updated_at,
               -- Since the watch joined its shared target (migration 0016).
               t.request_count - w.statistics_base_requests AS request_count,
               t.not_modified_count - w.statistics_base_not_modified AS not_modified_count,
               t.bytes_received - w.statistics_base_bytes_received AS bytes_received,
               t.bytes_saved - w.statistics_base_bytes_saved AS bytes_saved
        FROM watches w JOIN targets t ON t.id = w.target_id
        """

    private static let decoder = JSONDecoder()

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func requireWatch(userID: UUID, id: UUID, on connection: PostgresConnection) throws -> Watch {
        guard let row = try connection.query("\(unsafeSQL: selectWatch) WHERE w.id = \(id) AND w.user_id = \(userID)").first else {
            throw PostgresError(code: .decoding, message: "watch \(id) vanished inside its own transaction")
        }
        return try watch(from: row)
    }

    static func watch(from row: PostgresRow) throws -> Watch {
        Watch(
            id: try row.decode("id"),
            userID: try row.decode("user_id"),
            targetID: try row.decode("target_id"),
            url: try row.decode("url"),
            name: try row.decode("name"),
            intervalSeconds: try row.decode("interval_seconds"),
            maxIntervalSeconds: try row.decode("max_interval_seconds"),
            nextCheckAt: try row.decode("next_check_at"),
            versionURL: try row.decode("version_url"),
            versionPointer: try row.decode("version_pointer"),
            extract: try extract(from: row),
            headerNames: try decodeJSON([String].self, column: "header_names", of: row),
            versionHeaderNames: try decodeJSON([String].self, column: "version_header_names", of: row),
            paused: try row.decode("paused"),
            notify: try row.decode("notify"),
            state: try row.decode("state"),
            lastCheckedAt: try row.decode("last_checked_at"),
            lastCheckResult: try row.decode("last_check_result"),
            lastChangedAt: try row.decode("last_changed_at"),
            contentHash: try row.decode("content_hash"),
            unreadCount: try row.decode("unread_count"),
            consecutiveFailures: try row.decode("consecutive_failures"),
            lastError: try row.decode("last_error"),
            createdAt: try row.decode("created_at"),
            updatedAt: try row.decode("updated_at"),
            fetchStatistics: FetchStatistics(
                requests: try row.decode("request_count"),
                notModified: try row.decode("not_modified_count"),
                bytesReceived: try row.decode("bytes_received"),
                bytesSaved: try row.decode("bytes_saved")
            )
        )
    }

    /// The editable settings, header values opened; only `update` reads them.
    static func settings(from row: PostgresRow, secrets: StoredSecrets) throws -> WatchSettings {
        var versionCheck: VersionCheck?
        if let versionURL = try row.decode("version_url", as: String?.self) {
            versionCheck = VersionCheck(
                url: try storedURL(versionURL, column: "version_url"),
                pointer: try row.decode("version_pointer"),
                headers: RequestHeaders(
                    fields: try secrets.openHeaders(
                        try decodeJSON([String: String].self, column: "version_headers", of: row),
                        sealed: try row.decode("secrets_sealed"),
                        in: .versionHeaders
                    ))
            )
        }
        return WatchSettings(
            url: try storedURL(try row.decode("url"), column: "url"),
            headers: RequestHeaders(
                fields: try secrets.openHeaders(
                    try decodeJSON([String: String].self, column: "headers", of: row),
                    sealed: try row.decode("secrets_sealed")
                )),
            name: try row.decode("name"),
            intervalSeconds: try row.decode("interval_seconds"),
            maxIntervalSeconds: try row.decode("max_interval_seconds"),
            maxIntervalChosen: try row.decode("max_interval_chosen"),
            versionCheck: versionCheck,
            extract: try extract(from: row),
            paused: try row.decode("paused"),
            notify: try row.decode("notify")
        )
    }

    static func extractJSON(_ rule: ExtractionRule?) throws -> String? {
        try rule.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
    }

    /// `targets.headers` or `targets.version_headers`: lower-case name ->
    /// sealed value.
    static func headersJSON(_ sealedFields: [String: String]) throws -> String {
        String(decoding: try encoder.encode(sealedFields), as: UTF8.self)
    }

    private static func extract(from row: PostgresRow) throws -> ExtractionRule? {
        guard try row.decode("extract", as: String?.self) != nil else { return nil }
        return try decodeJSON(ExtractionRule.self, column: "extract", of: row)
    }

    /// Stored URLs were normalized on the way in; normalizing is idempotent,
    /// so this only rebuilds the parsed parts.
    private static func storedURL(_ text: String, column: String) throws -> NormalizedURL {
        do {
            return try URLNormalizer.normalize(text)
        } catch {
            throw PostgresError(code: .decoding, message: "column \"\(column)\" holds an unusable URL (\(error.code.rawValue))")
        }
    }

    private static func decodeJSON<Value: Decodable>(_ type: Value.Type, column: String, of row: PostgresRow) throws -> Value {
        let text = try row.decode(column, as: String.self)
        do {
            return try decoder.decode(Value.self, from: Data(text.utf8))
        } catch {
            throw PostgresError(code: .decoding, message: "column \"\(column)\" does not hold the expected JSON")
        }
    }
}
