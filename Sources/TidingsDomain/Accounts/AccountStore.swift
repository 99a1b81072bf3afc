package import FoundationEssentials
import TidingsCrypto
package import TidingsPostgres

/// Users and their API keys: all SQL for the accounts aggregate.
package struct AccountStore: Sendable {
    /// Updating `last_used_at` on every request would turn each read into a
    /// write; once a minute is precise enough to spot unused keys.
    static let lastUsedResolution = "1 minute"

    private let database: PostgresClient

    package init(database: PostgresClient) {
        self.database = database
    }

    // MARK: Users

    /// Creates a user together with its first API key, in one transaction.
    package func createUser(name: String, keyName: String?) throws -> (User, IssuedAPIKey) {
        try database.withTransaction { connection in
            let row = try connection.query(
                """
                INSERT INTO users (name) VALUES (\(name)) RETURNING id, name, created_at
                """
            ).single()
            let user = try Self.user(from: row)
            let key = try Self.issueKey(userID: user.id, name: keyName, on: connection)
            return (user, key)
        }
    }

    package func user(id: UUID) throws -> User? {
        try database.query("SELECT id, name, created_at FROM users WHERE id = \(id)").first.map(Self.user(from:))
    }

    package func listUsers(_ page: PageRequest) throws -> Page<User> {
        let rows = try database.query(
            """
            SELECT id, name, created_at FROM users
            WHERE (created_at, id) > (\(page.after.createdAt), \(page.after.id))
            ORDER BY created_at, id LIMIT \(page.limit + 1)
            """)
        return Page.from(rows: try rows.map(Self.user(from:)), limit: page.limit) {
            PageCursor(createdAt: $0.createdAt, id: $0.id)
        }
    }

    /// Deletes the user and, through foreign keys, everything it owns.
    package func deleteUser(id: UUID) throws -> Bool {
        try database.withConnection { try $0.execute("DELETE FROM users WHERE id = \(id)") } == 1
    }

    // MARK: Limits

    /// The user's own limits and what it has of each resource, as the limits
    /// count them (`user_usage`, migration 0018); nil when there is no such
    /// user.
    package func quota(userID: UUID) throws -> UserQuota? {
        guard
            let row = try database.query(
                """
                SELECT max_watches, max_webhooks, max_devices, max_api_keys,
                       user_usage(id, 'watches') AS watches, user_usage(id, 'webhooks') AS webhooks,
                       user_usage(id, 'devices') AS devices, user_usage(id, 'api_keys') AS api_keys
                FROM users WHERE id = \(userID)
                """
            ).first
        else { return nil }
        var overrides: [UserResource: Int] = [:]
        var usage: [UserResource: Int] = [:]
        for resource in UserResource.allCases {
            overrides[resource] = try row.decode(Self.limitColumn(resource), as: Int?.self)
            usage[resource] = try row.decode(resource.rawValue, as: Int.self)
        }
        return UserQuota(overrides: overrides, usage: usage)
    }

    /// Sets the user's own limits: a number replaces the deployment's
    /// default for that resource, nil goes back to it; resources not in
    /// `changes` keep what they had. False when there is no such user.
    /// Values must be within `UserLimits.range` (a CHECK holds it too).
    package func setLimits(userID: UUID, _ changes: [UserResource: Int?]) throws -> Bool {
        func change(_ resource: UserResource) -> (present: Bool, value: Int?) {
            guard let value = changes[resource] else { return (false, nil) }
            return (true, value)
        }
        let watches = change(.watches)
        let webhooks = change(.webhooks)
        let devices = change(.devices)
        let apiKeys = change(.apiKeys)
        return try database.withConnection { connection in
            try connection.execute(
                """
                UPDATE users SET
                    max_watches = CASE WHEN \(watches.present)::boolean THEN \(watches.value)::integer ELSE max_watches END,
                    max_webhooks = CASE WHEN \(webhooks.present)::boolean THEN \(webhooks.value)::integer ELSE max_webhooks END,
                    max_devices = CASE WHEN \(devices.present)::boolean THEN \(devices.value)::integer ELSE max_devices END,
                    max_api_keys = CASE WHEN \(apiKeys.present)::boolean THEN \(apiKeys.value)::integer ELSE max_api_keys END
                WHERE id = \(userID)
                """)
        } == 1
    }

    private static func limitColumn(_ resource: UserResource) -> String {
        switch resource {
        case .watches: "max_watches"
        case .webhooks: "max_webhooks"
        case .devices: "max_devices"
        case .apiKeys: "max_api_keys"
        }
    }

    // MARK: Keys

    /// Issues another key for an existing user; nil when there is no such
    /// user. Throws `UserLimitExceeded` when the user already has as many
    /// active keys as it may (migration 0018).
    package func issueKey(userID: UUID, name: String?) throws -> IssuedAPIKey? {
        try UserLimitExceeded.mapping(.apiKeys) {
            try database.withTransaction { connection in
                // The lock the limit trigger takes anyway, taken first: with a
                // weaker one (FOR SHARE) two concurrent issues would each wait
                // for the other's to upgrade it.
                guard try !connection.query("SELECT 1 FROM users WHERE id = \(userID) FOR NO KEY UPDATE").isEmpty else { return nil }
                return try Self.issueKey(userID: userID, name: name, on: connection)
            }
        }
    }

    package func listKeys(userID: UUID) throws -> [APIKey] {
        try database.query(
            """
            SELECT id, user_id, prefix, name, created_at, last_used_at, revoked_at
            FROM api_keys WHERE user_id = \(userID) ORDER BY created_at, id
            """
        ).map(Self.key(from:))
    }

    /// Revokes a key at once; revoking twice keeps the first time. Nil when
    /// the user has no such key.
    package func revokeKey(userID: UUID, keyID: UUID) throws -> APIKey? {
        try database.query(
            """
            UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
            WHERE id = \(keyID) AND user_id = \(userID)
            RETURNING id, user_id, prefix, name, created_at, last_used_at, revoked_at
            """
        ).first.map(Self.key(from:))
    }

    /// The key a presented token is, or nil when the token is malformed,
    /// unknown or revoked. Marks the key used (at most once a minute).
    package func authenticate(token: String) throws -> AuthenticatedKey? {
        guard let prefix = APIKeyToken.prefix(of: token) else { return nil }
        guard
            let row = try database.query(
                """
                SELECT id, user_id, key_hash, last_used_at < now() - \(Self.lastUsedResolution)::interval AS stale
                FROM api_keys WHERE prefix = \(prefix) AND revoked_at IS NULL
                """
            ).first
        else { return nil }
        let storedHash = try row.decode("key_hash", as: [UInt8].self)
        guard ConstantTime.isEqual(storedHash, APIKeyToken.hash(token)) else { return nil }
        let key = AuthenticatedKey(keyID: try row.decode("id"), userID: try row.decode("user_id"))
        if try row.decode("stale", as: Bool?.self) != false {
            try markUsed(keyID: key.keyID)
        }
        return key
    }

    /// Records that the key was used now, unless that was recorded within
    /// the last minute.
    package func markUsed(keyID: UUID) throws {
        try database.withConnection { connection in
            try connection.execute(
                """
                UPDATE api_keys SET last_used_at = now()
                WHERE id = \(keyID) AND (last_used_at IS NULL OR last_used_at < now() - \(Self.lastUsedResolution)::interval)
                """)
        }
    }

    // MARK: Rows

    private static func issueKey(userID: UUID, name: String?, on connection: PostgresConnection) throws -> IssuedAPIKey {
        let material = APIKeyToken.generate()
        let row = try connection.query(
            """
            INSERT INTO api_keys (user_id, prefix, key_hash, name)
            VALUES (\(userID), \(material.prefix), \(material.hash), \(name))
            RETURNING id, user_id, prefix, name, created_at, last_used_at, revoked_at
            """
        ).single()
        return IssuedAPIKey(key: try key(from: row), token: material.token)
    }

    private static func user(from row: PostgresRow) throws -> User {
        User(id: try row.decode("id"), name: try row.decode("name"), createdAt: try row.decode("created_at"))
    }

    private static func key(from row: PostgresRow) throws -> APIKey {
        APIKey(
            id: try row.decode("id"),
            userID: try row.decode("user_id"),
            prefix: try row.decode("prefix"),
            name: try row.decode("name"),
            createdAt: try row.decode("created_at"),
            lastUsedAt: try row.decode("last_used_at"),
            revokedAt: try row.decode("revoked_at")
        )
    }
}
