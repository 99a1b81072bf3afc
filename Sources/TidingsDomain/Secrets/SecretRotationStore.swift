import FoundationEssentials
import TidingsCrypto
package import TidingsPostgres
import TidingsSynchronization

/// Re-seals stored secrets under the current key: the start-up pass seals
/// what is still plain, `tidings rotate-secret-key` also what is sealed
/// under a previous key. Safe while the service runs: each batch is one
/// short transaction that locks its rows (`FOR UPDATE SKIP LOCKED`, so it
/// never waits on, nor blocks for long, a claim or an API write), and rows
/// that were locked are taken by the next pass.
package struct SecretRotationStore: Sendable {
    package enum Scope: Sendable {
        /// Values still plain (written before migration 0017, or by a
        /// replica not yet upgraded): what every start seals.
        case plainOnly
        /// Everything not sealed under the current key.
        case notUnderCurrentKey
    }

    /// Rows per transaction.
    package static let batchSize = 200
    /// Passes over the tables, 100 ms apart, while rows stay locked.
    package static let defaultPasses = 50

    private let database: PostgresClient
    private let secrets: StoredSecrets

    package init(database: PostgresClient, secrets: StoredSecrets) {
        self.database = database
        self.secrets = secrets
    }

    /// Re-seals everything in `scope`, in batches, until nothing is left
    /// or `passes` passes are done; `remaining` in the result says what is
    /// still in scope then (rows other transactions kept locked, or wrote
    /// meanwhile: a replica of the previous version still writes plain
    /// values). The caller decides whether that is an error.
    package func run(_ scope: Scope, passes: Int = defaultPasses) throws -> SecretRotationResult {
        let prefix = self.prefix(scope)
        var result = SecretRotationResult()
        for pass in 1...max(passes, 1) {
            result.keys += try resealKeys(prefix: prefix)
            result.webhooks += try resealWebhooks(prefix: prefix)
            result.pushApps += try resealPushApps(prefix: prefix)
            result.devices += try resealDevices(prefix: prefix)
            let targets = try resealTargets(scope, prefix: prefix)
            result.targets += targets.resealed
            result.mergedTargets += targets.merged
            result.remaining = try remaining(scope, prefix: prefix)
            if result.remaining == 0 || pass == passes { break }
            // Another transaction held them; they are free again soon.
            WakeSignal().wait(timeout: .milliseconds(100))
        }
        return result
    }

    /// What a value in scope does not start with: any sealed value starts
    /// with `enc:`, one under the current key with `enc:v1:<id>:`.
    private func prefix(_ scope: Scope) -> String {
        switch scope {
        case .plainOnly: SecretKeyring.prefix
        case .notUnderCurrentKey: secrets.keyring.currentPrefix
        }
    }

    // MARK: sealed_keys

    private func resealKeys(prefix: String) throws -> Int {
        try database.withTransaction { connection in
            let rows = try connection.query(
                """
                SELECT purpose, sealed FROM sealed_keys
                WHERE left(sealed, length(\(prefix))) <> \(prefix)
                ORDER BY purpose
                FOR UPDATE SKIP LOCKED
                """)
            var changed = 0
            for row in rows {
                let purpose: String = try row.decode("purpose")
                guard let known = SealedKeyStore.Purpose(rawValue: purpose) else { continue }
                let context = SealedKeyStore.context(known)
                let plain = try secrets.keyring.open(try row.decode("sealed"), context: context)
                changed += try connection.execute(
                    """
                    UPDATE sealed_keys SET sealed = \(try secrets.keyring.seal(plain, context: context))
                    WHERE purpose = \(purpose)
                    """)
            }
            return changed
        }
    }

    // MARK: webhooks

    private func resealWebhooks(prefix: String) throws -> Int {
        var cursor = Self.firstID
        var changed = 0
        while true {
            let batch: (count: Int, last: UUID?) = try database.withTransaction { connection in
                let rows = try connection.query(
                    """
                    SELECT id, secret, previous_secret FROM webhooks
                    WHERE id > \(cursor)
                        AND (left(secret, length(\(prefix))) <> \(prefix)
                             OR left(previous_secret, length(\(prefix))) <> \(prefix))
                    ORDER BY id
                    LIMIT \(Self.batchSize)
                    FOR UPDATE SKIP LOCKED
                    """)
                var ids: [UUID] = []
                var current: [String?] = []
                var previous: [String?] = []
                for row in rows {
                    ids.append(try row.decode("id"))
                    current.append(try reseal(try row.decode("secret", as: String.self), prefix: prefix))
                    previous.append(try row.decode("previous_secret", as: String?.self).map { try reseal($0, prefix: prefix) })
                }
                guard !ids.isEmpty else { return (0, nil) }
                // Only the values change: not updated_at, which is the
                // owner's edits.
                let updated = try connection.execute(
                    """
                    UPDATE webhooks w SET secret = u.secret, previous_secret = u.previous_secret
                    FROM unnest(\(PostgresArray(ids))::uuid[], \(PostgresArray(current))::text[],
                                \(PostgresArray(previous))::text[]) AS u(id, secret, previous_secret)
                    WHERE w.id = u.id
                    """)
                return (updated, ids.last)
            }
            changed += batch.count
            guard let last = batch.last else { return changed }
            cursor = last
        }
    }

    /// A webhook secret sealed under the current key (left as is when it
    /// already starts with `prefix`).
    private func reseal(_ stored: String, prefix: String) throws -> String {
        guard !stored.hasPrefix(prefix) else { return stored }
        return try secrets.sealWebhookSecret(try secrets.openWebhookSecret(stored))
    }

    // MARK: push_apps

    /// Push app keys are sealed from the start (migration 0020), so only a
    /// key rotation finds any; there are a handful, one transaction does.
    private func resealPushApps(prefix: String) throws -> Int {
        try database.withTransaction { connection in
            let rows = try connection.query(
                """
                SELECT id, private_key FROM push_apps
                WHERE left(private_key, length(\(prefix))) <> \(prefix)
                ORDER BY id
                FOR UPDATE SKIP LOCKED
                """)
            var changed = 0
            for row in rows {
                let resealed = try secrets.sealPushKey(try secrets.openPushKey(try row.decode("private_key")))
                changed += try connection.execute(
                    """
                    UPDATE push_apps SET private_key = \(resealed) WHERE id = \(try row.decode("id", as: UUID.self))
                    """)
            }
            return changed
        }
    }

    // MARK: devices

    /// Web devices' `keys.auth` (migration 0033), sealed from the start:
    /// only a key rotation finds any. Batches by id, as for webhooks.
    private func resealDevices(prefix: String) throws -> Int {
        var cursor = Self.firstID
        var changed = 0
        while true {
            let batch: (count: Int, last: UUID?) = try database.withTransaction { connection in
                let rows = try connection.query(
                    """
                    SELECT id, web_push_auth FROM devices
                    WHERE id > \(cursor) AND web_push_auth IS NOT NULL
                        AND left(web_push_auth, length(\(prefix))) <> \(prefix)
                    ORDER BY id
                    LIMIT \(Self.batchSize)
                    FOR UPDATE SKIP LOCKED
                    """)
                var ids: [UUID] = []
                var sealed: [String] = []
                for row in rows {
                    ids.append(try row.decode("id"))
                    sealed.append(try secrets.sealWebPushAuth(try secrets.openWebPushAuth(try row.decode("web_push_auth"))))
                }
                guard !ids.isEmpty else { return (0, nil) }
                let updated = try connection.execute(
                    """
                    UPDATE devices d SET web_push_auth = u.auth
                    FROM unnest(\(PostgresArray(ids))::uuid[], \(PostgresArray(sealed))::text[]) AS u(id, auth)
                    WHERE d.id = u.id
                    """)
                return (updated, ids.last)
            }
            changed += batch.count
            guard let last = batch.last else { return changed }
            cursor = last
        }
    }

    // MARK: targets

    /// A target whose keyed fingerprint is already another target's:
    /// possible only for a plain row written by a replica not yet upgraded
    /// after this one sealed an equal target.
    private struct Duplicate {
        let id: UUID
        let legacyFingerprint: String
        let fingerprint: String
        let sealedHeaders: String
        let sealedVersionHeaders: String
    }

    private func resealTargets(_ scope: Scope, prefix: String) throws -> (resealed: Int, merged: Int) {
        var cursor = Self.firstID
        var resealed = 0
        var duplicates: [Duplicate] = []
        while true {
            let batch: (count: Int, last: UUID?, duplicates: [Duplicate]) = try database.withTransaction { connection in
                let rows = try connection.query(Self.targetBatch(scope, prefix: prefix, after: cursor))
                var ids: [UUID] = []
                var headers: [String?] = []
                var versionHeaders: [String?] = []
                var fingerprints: [String?] = []
                var found: [Duplicate] = []
                var last: UUID?
                for row in rows {
                    let id: UUID = try row.decode("id")
                    last = id
                    let wasSealed: Bool = try row.decode("secrets_sealed")
                    let plain = RequestHeaders(
                        fields: try secrets.openHeaders(
                            try Self.decodeHeaders(try row.decode("headers"), column: .headers), sealed: wasSealed
                        ))
                    let plainVersion = RequestHeaders(
                        fields: try secrets.openHeaders(
                            try Self.decodeHeaders(try row.decode("version_headers"), column: .versionHeaders),
                            sealed: wasSealed, in: .versionHeaders
                        ))
                    let sealed = try WatchStore.headersJSON(try secrets.sealHeaders(plain.fields))
                    let sealedVersion = try WatchStore.headersJSON(try secrets.sealHeaders(plainVersion.fields, in: .versionHeaders))
                    let fingerprint = secrets.fingerprint(plain, versionHeaders: plainVersion)
                    let storedFingerprint: String = try row.decode("headers_fingerprint")
                    // Looked up without a lock (waiting for one while holding
                    // the batch's could deadlock); `merge` locks and looks again.
                    if fingerprint != storedFingerprint,
                        try Self.equalTarget(
                            of: id, fingerprint: fingerprint, url: try row.decode("url"),
                            versionURL: try row.decode("version_url"), versionPointer: try row.decode("version_pointer"),
                            locking: false, on: connection
                        ) != nil
                    {
                        found.append(
                            Duplicate(
                                id: id, legacyFingerprint: storedFingerprint, fingerprint: fingerprint,
                                sealedHeaders: sealed, sealedVersionHeaders: sealedVersion
                            ))
                        continue
                    }
                    ids.append(id)
                    headers.append(sealed)
                    versionHeaders.append(sealedVersion)
                    fingerprints.append(fingerprint)
                }
                guard let last else { return (0, nil, []) }
                var updated = 0
                if !ids.isEmpty {
                    updated = try connection.execute(
                        """
                        UPDATE targets t
                        SET headers = u.headers::jsonb, version_headers = u.version_headers::jsonb,
                            headers_fingerprint = u.fingerprint, secrets_sealed = true
                        FROM unnest(\(PostgresArray(ids))::uuid[], \(PostgresArray(headers))::text[],
                                    \(PostgresArray(versionHeaders))::text[],
                                    \(PostgresArray(fingerprints))::text[]) AS u(id, headers, version_headers, fingerprint)
                        WHERE t.id = u.id
                        """)
                }
                return (updated, last, found)
            }
            resealed += batch.count
            duplicates += batch.duplicates
            guard let last = batch.last else { break }
            cursor = last
        }
        var merged = 0
        for duplicate in duplicates {
            switch try merge(duplicate) {
            case .merged: merged += 1
            case .sealed: resealed += 1
            case .changedMeanwhile: break
            }
        }
        return (resealed, merged)
    }

    /// The next batch of targets in scope after `cursor`, locked.
    private static func targetBatch(_ scope: Scope, prefix: String, after cursor: UUID) -> PostgresQuery {
        switch scope {
        case .plainOnly:
            // Reads targets_unsealed_idx.
            """
            SELECT id, url, headers::text AS headers, version_headers::text AS version_headers, headers_fingerprint,
                secrets_sealed, version_url, version_pointer
            FROM targets
            WHERE NOT secrets_sealed AND id > \(cursor)
            ORDER BY id LIMIT \(batchSize)
            FOR UPDATE SKIP LOCKED
            """
        case .notUnderCurrentKey:
            """
            SELECT id, url, headers::text AS headers, version_headers::text AS version_headers, headers_fingerprint,
                secrets_sealed, version_url, version_pointer
            FROM targets
            WHERE (NOT secrets_sealed
                   OR EXISTS (SELECT 1 FROM jsonb_each_text(headers) AS h WHERE left(h.value, length(\(prefix))) <> \(prefix))
                   OR EXISTS (SELECT 1 FROM jsonb_each_text(version_headers) AS h WHERE left(h.value, length(\(prefix))) <> \(prefix)))
                AND id > \(cursor)
            ORDER BY id LIMIT \(batchSize)
            FOR UPDATE SKIP LOCKED
            """
        }
    }

    private static func targetCount(_ scope: Scope, prefix: String) -> PostgresQuery {
        switch scope {
        case .plainOnly:
            "SELECT count(*) AS n FROM targets WHERE NOT secrets_sealed"
        case .notUnderCurrentKey:
            """
            SELECT count(*) AS n FROM targets
            WHERE NOT secrets_sealed
                OR EXISTS (SELECT 1 FROM jsonb_each_text(headers) AS h WHERE left(h.value, length(\(prefix))) <> \(prefix))
                OR EXISTS (SELECT 1 FROM jsonb_each_text(version_headers) AS h WHERE left(h.value, length(\(prefix))) <> \(prefix))
            """
        }
    }

    /// Moves a duplicate's watches to the equal target and deletes it, in
    /// a transaction of its own that locks the watches first, then the
    /// targets, the order every other path takes.
    private enum MergeOutcome {
        case merged
        /// The equal target was gone by then: the row was sealed instead.
        case sealed
        /// The row is no longer the plain one read; the next pass sees it.
        case changedMeanwhile
    }

    private func merge(_ duplicate: Duplicate) throws -> MergeOutcome {
        try database.withTransaction { connection in
            _ = try connection.query("SELECT id FROM watches WHERE target_id = \(duplicate.id) ORDER BY id FOR UPDATE")
            guard
                let row = try connection.query(
                    """
                    SELECT url, version_url, version_pointer FROM targets
                    WHERE id = \(duplicate.id) AND headers_fingerprint = \(duplicate.legacyFingerprint) AND NOT secrets_sealed
                    FOR UPDATE
                    """
                ).first
            else { return .changedMeanwhile }
            guard
                let survivor = try Self.equalTarget(
                    of: duplicate.id, fingerprint: duplicate.fingerprint, url: try row.decode("url"),
                    versionURL: try row.decode("version_url"), versionPointer: try row.decode("version_pointer"),
                    locking: true, on: connection
                )
            else {
                try connection.execute(
                    """
                    UPDATE targets
                    SET headers = \(duplicate.sealedHeaders)::jsonb, version_headers = \(duplicate.sealedVersionHeaders)::jsonb,
                        headers_fingerprint = \(duplicate.fingerprint), secrets_sealed = true
                    WHERE id = \(duplicate.id)
                    """)
                return .sealed
            }
            // A watch's statistics start again from its new target's totals
            // (migration 0021: no trigger does it).
            try connection.execute(
                """
                UPDATE watches
                SET target_id = \(survivor), statistics_base_requests = b.requests, statistics_base_not_modified = b.not_modified,
                    statistics_base_bytes_received = b.bytes_received, statistics_base_bytes_saved = b.bytes_saved
                FROM watch_statistics_base(\(survivor)) AS b
                WHERE target_id = \(duplicate.id)
                """)
            // As when a watch joins a target (WatchStore.attachTarget): the
            // moved watches need a full body to compare, not a 304.
            try connection.execute(
                """
                UPDATE targets SET etag = NULL, last_modified = NULL, last_version = NULL, next_check_at = least(next_check_at, now())
                WHERE id = \(survivor)
                """)
            // The watches trigger deleted it with its last watch; a target
            // without watches would not have existed, but be sure.
            try connection.execute("DELETE FROM targets WHERE id = \(duplicate.id)")
            return .merged
        }
    }

    /// Another target with this identity (migration 0028's key).
    private static func equalTarget(
        of id: UUID, fingerprint: String, url: String, versionURL: String?, versionPointer: String?,
        locking: Bool, on connection: PostgresConnection
    ) throws -> UUID? {
        try connection.query(
            """
            SELECT t.id FROM target_identities i JOIN targets t ON t.id = i.target_id
            WHERE i.url = \(url) AND i.headers_fingerprint = \(fingerprint)
                AND i.version_url IS NOT DISTINCT FROM \(versionURL) AND i.version_pointer IS NOT DISTINCT FROM \(versionPointer)
                AND t.id <> \(id)
            \(unsafeSQL: locking ? "FOR UPDATE OF t" : "")
            """
        ).first?.decode("id")
    }

    private static func decodeHeaders(_ text: String, column: StoredSecrets.HeaderColumn) throws -> [String: String] {
        guard text != "{}" else { return [:] }
        do {
            return try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
        } catch {
            throw StoredSecretsError.unreadableHeaders(column)
        }
    }

    // MARK: Progress

    /// Rows still in scope (locked ones, or written meanwhile).
    private func remaining(_ scope: Scope, prefix: String) throws -> Int {
        let keys = try database.query(
            """
            SELECT count(*) AS n FROM sealed_keys WHERE left(sealed, length(\(prefix))) <> \(prefix)
            """
        ).single().decode("n", as: Int.self)
        let webhooks = try database.query(
            """
            SELECT count(*) AS n FROM webhooks
            WHERE left(secret, length(\(prefix))) <> \(prefix) OR left(previous_secret, length(\(prefix))) <> \(prefix)
            """
        ).single().decode("n", as: Int.self)
        let pushApps = try database.query(
            """
            SELECT count(*) AS n FROM push_apps WHERE left(private_key, length(\(prefix))) <> \(prefix)
            """
        ).single().decode("n", as: Int.self)
        let devices = try database.query(
            """
            SELECT count(*) AS n FROM devices
            WHERE web_push_auth IS NOT NULL AND left(web_push_auth, length(\(prefix))) <> \(prefix)
            """
        ).single().decode("n", as: Int.self)
        let targets = try database.query(Self.targetCount(scope, prefix: prefix)).single().decode("n", as: Int.self)
        return keys + webhooks + pushApps + devices + targets
    }

    private static let firstID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}
