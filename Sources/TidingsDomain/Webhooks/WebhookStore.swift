package import FoundationEssentials
import TidingsCrypto
package import TidingsPostgres

/// Webhooks and their signing secrets: all SQL for the webhooks aggregate.
/// Secrets are stored sealed (`StoredSecrets`).
///
/// Every statement is scoped by a `WebhookOwner` with the condition
/// `(user_id = <user> OR (global AND <is global>))`: a user's id matches only
/// its own rows (never the NULL user_id of global ones), and the global
/// owner binds a NULL user id, so it matches only global rows.
package struct WebhookStore: Sendable {
    /// How long the previous secret keeps signing after a rotation, so
    /// receivers can switch to the new one without dropping deliveries.
    package static let rotationOverlap = "24 hours"
    /// Why a webhook is disabled when its owner disabled it.
    package static let disabledByOwnerReason = "disabled by its owner"

    private static let columns = "id, user_id, url, event_types, description, disabled_at, disabled_reason, created_at, updated_at"

    private let database: PostgresClient
    private let secrets: StoredSecrets

    /// `secrets` seals each new signing secret; this store never opens one
    /// (the dispatcher does, to sign).
    package init(database: PostgresClient, secrets: StoredSecrets) {
        self.database = database
        self.secrets = secrets
    }

    /// Creates a webhook with a new signing secret, stored sealed and
    /// returned in plain this once. Throws `UserLimitExceeded` when a user
    /// already has as many webhooks as it may (migration 0018); global
    /// webhooks are not limited.
    package func create(owner: WebhookOwner, _ webhook: NewWebhook) throws -> WebhookWithSecret {
        let secret = WebhookSecret.generate().encoded
        let sealed = try secrets.sealWebhookSecret(secret)
        let row = try UserLimitExceeded.mapping(.webhooks) {
            try database.query(
                """
                INSERT INTO webhooks (user_id, global, url, event_types, description, secret)
                VALUES (\(owner.userID), \(owner.isGlobal), \(webhook.url),
                        \(WebhookEventType.postgresArray(webhook.eventTypes))::text[], \(webhook.description), \(sealed))
                RETURNING \(unsafeSQL: Self.columns)
                """
            ).single()
        }
        return WebhookWithSecret(webhook: try Self.webhook(from: row), secret: secret)
    }

    package func webhook(id: UUID, owner: WebhookOwner) throws -> Webhook? {
        try database.query(
            """
            SELECT \(unsafeSQL: Self.columns) FROM webhooks
            WHERE id = \(id) AND (user_id = \(owner.userID) OR (global AND \(owner.isGlobal)))
            """
        ).first.map(Self.webhook(from:))
    }

    package func list(owner: WebhookOwner, _ page: PageRequest) throws -> Page<Webhook> {
        let rows = try database.query(
            """
            SELECT \(unsafeSQL: Self.columns) FROM webhooks
            WHERE (user_id = \(owner.userID) OR (global AND \(owner.isGlobal)))
                AND (created_at, id) > (\(page.after.createdAt), \(page.after.id))
            ORDER BY created_at, id LIMIT \(page.limit + 1)
            """)
        return Page.from(rows: try rows.map(Self.webhook(from:)), limit: page.limit) {
            PageCursor(createdAt: $0.createdAt, id: $0.id)
        }
    }

    /// Applies the changes present; nil when the owner has no such webhook.
    package func update(id: UUID, owner: WebhookOwner, _ changes: WebhookChanges) throws -> Webhook? {
        guard !changes.isEmpty else { return try webhook(id: id, owner: owner) }
        let eventTypes = changes.eventTypes.map(WebhookEventType.postgresArray)
        return try database.query(
            """
            UPDATE webhooks SET
                url = coalesce(\(changes.url)::text, url),
                event_types = coalesce(\(eventTypes)::text[], event_types),
                description = CASE WHEN \(changes.description != nil)::boolean THEN \(changes.description ?? nil)::text ELSE description END,
                disabled_at = CASE \(changes.enabled)::boolean
                    WHEN true THEN NULL WHEN false THEN coalesce(disabled_at, now()) ELSE disabled_at END,
                disabled_reason = CASE \(changes.enabled)::boolean
                    WHEN true THEN NULL WHEN false THEN coalesce(disabled_reason, \(Self.disabledByOwnerReason)) ELSE disabled_reason END,
                updated_at = now()
            WHERE id = \(id) AND (user_id = \(owner.userID) OR (global AND \(owner.isGlobal)))
            RETURNING \(unsafeSQL: Self.columns)
            """
        ).first.map(Self.webhook(from:))
    }

    /// Retried after a deadlock: the dispatcher records attempts, which
    /// lock the webhook's row, while the delete cascades to its deliveries.
    package func delete(id: UUID, owner: WebhookOwner) throws -> Bool {
        try database.withRetryingTransaction { connection in
            try connection.execute(
                """
                DELETE FROM webhooks WHERE id = \(id) AND (user_id = \(owner.userID) OR (global AND \(owner.isGlobal)))
                """)
        } == 1
    }

    /// Issues a new signing secret. The current one becomes the previous
    /// secret and keeps signing for `rotationOverlap`; a secret that was
    /// still in its overlap from an earlier rotation is dropped. The sealed
    /// current value moves to `previous_secret` as it is (both columns seal
    /// with the same context).
    package func rotateSecret(id: UUID, owner: WebhookOwner) throws -> WebhookWithSecret? {
        let secret = WebhookSecret.generate().encoded
        let sealed = try secrets.sealWebhookSecret(secret)
        let row = try database.query(
            """
            UPDATE webhooks SET
                previous_secret = secret,
                previous_secret_expires_at = now() + \(Self.rotationOverlap)::interval,
                secret = \(sealed),
                updated_at = now()
            WHERE id = \(id) AND (user_id = \(owner.userID) OR (global AND \(owner.isGlobal)))
            RETURNING \(unsafeSQL: Self.columns)
            """
        ).first
        return try row.map { WebhookWithSecret(webhook: try Self.webhook(from: $0), secret: secret) }
    }

    /// Enables a webhook again, clearing why it was disabled.
    package func enable(id: UUID, owner: WebhookOwner) throws -> Webhook? {
        try update(id: id, owner: owner, WebhookChanges(enabled: true))
    }

    private static func webhook(from row: PostgresRow) throws -> Webhook {
        Webhook(
            id: try row.decode("id"),
            userID: try row.decode("user_id"),
            url: try row.decode("url"),
            eventTypes: try WebhookEventType.parse(postgresArray: try row.decode("event_types")),
            description: try row.decode("description"),
            disabledAt: try row.decode("disabled_at"),
            disabledReason: try row.decode("disabled_reason"),
            createdAt: try row.decode("created_at"),
            updatedAt: try row.decode("updated_at")
        )
    }
}
