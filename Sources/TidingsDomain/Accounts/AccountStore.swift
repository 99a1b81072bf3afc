import FoundationEssentials
import TidingsCrypto
import TidingsPostgres

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
            let row = try connection.query("""
                INSERT INTO users (name) VALUES (\(name)) RETURNING id, name, created_at
                """).single()
            let user = try Self.user(from: row)
            let key = try Self.issueKey(userID: user.id, name: keyName, on: connection)
            return (user, key)
        }
    }

    package func user(id: UUID) throws -> User? {
        try database.query("SELECT id, name, created_at FROM users WHERE id = \(id)").first.map(Self.user(from:))
    }

    package func listUsers(_ page: PageRequest) throws -> Page<User> {
        let rows = try database.query("""
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

    // MARK: Keys

    /// Issues another key for an existing user; nil when there is no such user.
    package func issueKey(userID: UUID, name: String?) throws -> IssuedAPIKey? {
        try database.withTransaction { connection in
            guard try !connection.query("SELECT 1 FROM users WHERE id = \(userID) FOR SHARE").isEmpty else { return nil }
            return try Self.issueKey(userID: userID, name: name, on: connection)
        }
    }

    package func listKeys(userID: UUID) throws -> [APIKey] {
        try database.query("""
            SELECT id, user_id, prefix, name, created_at, last_used_at, revoked_at
            FROM api_keys WHERE user_id = \(userID) ORDER BY created_at, id
            """).map(Self.key(from:))
    }

    /// Revokes a key at once; revoking twice keeps the first time. Nil when
    /// the user has no such key.
    package func revokeKey(userID: UUID, keyID: UUID) throws -> APIKey? {
        try database.query("""
            UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
            WHERE id = \(keyID) AND user_id = \(userID)
            RETURNING id, user_id, prefix, name, created_at, last_used_at, revoked_at
            """).first.map(Self.key(from:))
    }

    /// The key a presented token is, or nil when the token is malformed,
    /// unknown or revoked. Marks the key used (at most once a minute).
    package func authenticate(token: String) throws -> AuthenticatedKey? {
        guard let prefix = APIKeyToken.prefix(of: token) else { return nil }
        guard let row = try database.query("""
            SELECT id, user_id, key_hash, last_used_at < now() - \(Self.lastUsedResolution)::interval AS stale
            FROM api_keys WHERE prefix = \(prefix) AND revoked_at IS NULL
            """).first
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
            try connection.execute("""
                UPDATE api_keys SET last_used_at = now()
                WHERE id = \(keyID) AND (last_used_at IS NULL OR last_used_at < now() - \(Self.lastUsedResolution)::interval)
                """)
        }
    }

    // MARK: Rows

    private static func issueKey(userID: UUID, name: String?, on connection: PostgresConnection) throws -> IssuedAPIKey {
        let material = APIKeyToken.generate()
        let row = try connection.query("""
            INSERT INTO api_keys (user_id, prefix, key_hash, name)
            VALUES (\(userID), \(material.prefix), \(material.hash), \(name))
            RETURNING id, user_id, prefix, name, created_at, last_used_at, revoked_at
            """).single()
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
