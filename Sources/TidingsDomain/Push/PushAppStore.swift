package import FoundationEssentials
package import TidingsPostgres
import TidingsPush

/// The `push_apps` table: the admin's push credentials. Private keys are
/// sealed on the way in and opened only by `credentials(of:)`, for the push
/// dispatcher, and by `update`, which needs the whole set to edit.
package struct PushAppStore: Sendable {
    private let database: PostgresClient
    private let secrets: StoredSecrets

    package init(database: PostgresClient, secrets: StoredSecrets) {
        self.database = database
        self.secrets = secrets
    }

    private static let columns = """
        id, platform, app_id, environment, team_id, key_id, project_id, client_email, token_uri,
        vapid_subject, vapid_public_key, created_at, updated_at
        """

    /// The app id of the one Web Push app, which holds the deployment's
    /// VAPID key (migration 0033).
    package static let vapidAppID = "vapid"

    /// Nil when an app of the same platform and app id exists.
    package func create(_ app: NewPushApp) throws -> PushApp? {
        let fields = try StoredFields(app, secrets: secrets)
        return try database.query(
            """
            INSERT INTO push_apps (platform, app_id, environment, team_id, key_id, project_id, client_email, token_uri, private_key)
            VALUES (\(app.credentials.platform), \(app.appID), \(fields.environment), \(fields.teamID), \(fields.keyID),
                    \(fields.projectID), \(fields.clientEmail), \(fields.tokenURI), \(fields.sealedKey))
            ON CONFLICT ON CONSTRAINT push_apps_platform_app_key DO NOTHING
            RETURNING \(unsafeSQL: Self.columns)
            """
        ).first.map(Self.app(from:))
    }

    package func list(_ page: PageRequest) throws -> Page<PushApp> {
        let rows = try database.query(
            """
            SELECT \(unsafeSQL: Self.columns) FROM push_apps
            WHERE platform <> 'webpush' AND (created_at, id) > (\(page.after.createdAt), \(page.after.id))
            ORDER BY created_at, id LIMIT \(page.limit + 1)
            """)
        return Page.from(rows: try rows.map(Self.app(from:)), limit: page.limit) {
            PageCursor(createdAt: $0.createdAt, id: $0.id)
        }
    }

    /// An app of the admin's; the Web Push app is not among them.
    package func app(id: UUID) throws -> PushApp? {
        try database.query(
            """
            SELECT \(unsafeSQL: Self.columns) FROM push_apps WHERE id = \(id) AND platform <> 'webpush'
            """
        ).first.map(Self.app(from:))
    }

    /// The app and its opened credentials, for sending.
    package func credentials(of id: UUID) throws -> (app: PushApp, credentials: PushAppCredentials)? {
        guard
            let row = try database.query(
                """
                SELECT \(unsafeSQL: Self.columns), private_key FROM push_apps WHERE id = \(id)
                """
            ).first
        else { return nil }
        let app = try Self.app(from: row)
        return (app, try Self.credentials(of: app, sealedKey: try row.decode("private_key"), secrets: secrets))
    }

    package enum UpdateOutcome: Sendable {
        case updated(PushApp)
        case notFound
        /// Another app has the platform and app id the edit asked for.
        case conflict
    }

    /// Lets `edit` change the app (its key opened) and stores the result in
    /// one transaction with the row locked; an error thrown by `edit`
    /// leaves everything as it was. The platform cannot change.
    package func update(id: UUID, _ edit: (inout NewPushApp) throws -> Void) throws -> UpdateOutcome {
        try database.withTransaction { connection in
            guard
                let row = try connection.query(
                    """
                    SELECT \(unsafeSQL: Self.columns), private_key FROM push_apps WHERE id = \(id) AND platform <> 'webpush' FOR UPDATE
                    """
                ).first
            else { return .notFound }
            let stored = try Self.app(from: row)
            let current = NewPushApp(
                appID: stored.appID,
                credentials: try Self.credentials(of: stored, sealedKey: try row.decode("private_key"), secrets: secrets)
            )
            var updated = current
            try edit(&updated)
            precondition(updated.credentials.platform == current.credentials.platform, "a push app's platform cannot change")
            guard updated != current else { return .updated(stored) }
            let fields = try StoredFields(updated, secrets: secrets)
            let conflicting =
                try connection.query(
                    """
                    SELECT 1 AS found FROM push_apps WHERE platform = \(updated.credentials.platform) AND app_id = \(updated.appID) AND id <> \(id)
                    """
                ).first != nil
            guard !conflicting else { return .conflict }
            let written = try connection.query(
                """
                UPDATE push_apps
                SET app_id = \(updated.appID), environment = \(fields.environment), team_id = \(fields.teamID),
                    key_id = \(fields.keyID), project_id = \(fields.projectID), client_email = \(fields.clientEmail),
                    token_uri = \(fields.tokenURI), private_key = \(fields.sealedKey), updated_at = now()
                WHERE id = \(id)
                RETURNING \(unsafeSQL: Self.columns)
                """
            ).single()
            return .updated(try Self.app(from: written))
        }
    }

    /// Deletes an app of the admin's; its pushes go with it, pending or logged.
    package func delete(id: UUID) throws -> Bool {
        try database.withConnection { try $0.execute("DELETE FROM push_apps WHERE id = \(id) AND platform <> 'webpush'") } == 1
    }

    // MARK: The Web Push app

    /// Makes the Web Push app hold this VAPID key and subject, at start:
    /// created when missing, rewritten (private key sealed anew,
    /// `updated_at` moved, so dispatchers rebuild their client) only when
    /// the public key or subject differs, so replicas starting with the
    /// same key change nothing. Returns the app.
    @discardableResult
    package func installVAPIDKey(publicKey: String, subject: String, privateKeyPEM: String) throws -> PushApp {
        let sealed = try secrets.sealPushKey(privateKeyPEM)
        return try database.withTransaction { connection in
            let written = try connection.query(
                """
                INSERT INTO push_apps (platform, app_id, vapid_subject, vapid_public_key, private_key)
                VALUES ('webpush', \(Self.vapidAppID), \(subject), \(publicKey), \(sealed))
                ON CONFLICT ON CONSTRAINT push_apps_platform_app_key DO UPDATE
                SET vapid_subject = EXCLUDED.vapid_subject, vapid_public_key = EXCLUDED.vapid_public_key,
                    private_key = EXCLUDED.private_key, updated_at = now()
                WHERE push_apps.vapid_public_key IS DISTINCT FROM EXCLUDED.vapid_public_key
                   OR push_apps.vapid_subject IS DISTINCT FROM EXCLUDED.vapid_subject
                RETURNING \(unsafeSQL: Self.columns)
                """
            ).first
            if let written { return try Self.app(from: written) }
            return try Self.app(
                from: try connection.query(
                    """
                    SELECT \(unsafeSQL: Self.columns) FROM push_apps WHERE platform = 'webpush' AND app_id = \(Self.vapidAppID)
                    """
                ).single())
        }
    }

    /// Deletes the Web Push app (web push is off): its pushes, pending or
    /// logged, go with it, and web devices are logged as skipped. Returns
    /// whether there was one.
    @discardableResult
    package func removeVAPIDKey() throws -> Bool {
        try database.withConnection { try $0.execute("DELETE FROM push_apps WHERE platform = 'webpush'") } > 0
    }

    /// The Web Push app, or nil when web push is off.
    package func vapidApp() throws -> PushApp? {
        try database.query(
            """
            SELECT \(unsafeSQL: Self.columns) FROM push_apps WHERE platform = 'webpush' AND app_id = \(Self.vapidAppID)
            """
        ).first.map(Self.app(from:))
    }

    // MARK: Rows

    /// The Web Push app is written at start only (`installVAPIDKey`).
    package struct NotAdminManaged: Error, CustomStringConvertible {
        package var description: String { "the Web Push app holds the deployment's VAPID key and is not created through the admin API" }
    }

    /// The columns of one app, its key sealed.
    private struct StoredFields {
        var environment: String?
        var teamID: String?
        var keyID: String?
        var projectID: String?
        var clientEmail: String?
        var tokenURI: String?
        let sealedKey: String

        init(_ app: NewPushApp, secrets: StoredSecrets) throws {
            sealedKey = try secrets.sealPushKey(app.credentials.privateKeyPEM)
            switch app.credentials {
            case .apns(let environment, let teamID, let keyID, _):
                self.environment = environment.rawValue
                self.teamID = teamID
                self.keyID = keyID
            case .fcm(let projectID, let clientEmail, let tokenURI, _):
                self.projectID = projectID
                self.clientEmail = clientEmail
                self.tokenURI = tokenURI
            case .webPush:
                // Written by installVAPIDKey only; create and update never
                // see one (the admin API refuses the platform).
                throw NotAdminManaged()
            }
        }
    }

    private static func credentials(of app: PushApp, sealedKey: String, secrets: StoredSecrets) throws -> PushAppCredentials {
        let pem = try secrets.openPushKey(sealedKey)
        switch app.platform {
        case .apns:
            guard let environment = app.environment, let teamID = app.teamID, let keyID = app.keyID else {
                throw PostgresError(code: .decoding, message: "push app \(app.id) lacks its APNs fields")
            }
            return .apns(environment: environment, teamID: teamID, keyID: keyID, privateKeyPEM: pem)
        case .fcm:
            guard let projectID = app.projectID, let clientEmail = app.clientEmail, let tokenURI = app.tokenURI else {
                throw PostgresError(code: .decoding, message: "push app \(app.id) lacks its FCM fields")
            }
            return .fcm(projectID: projectID, clientEmail: clientEmail, tokenURI: tokenURI, privateKeyPEM: pem)
        case .webpush:
            guard let subject = app.vapidSubject else {
                throw PostgresError(code: .decoding, message: "push app \(app.id) lacks its VAPID subject")
            }
            return .webPush(subject: subject, privateKeyPEM: pem)
        }
    }

    private static func app(from row: PostgresRow) throws -> PushApp {
        PushApp(
            id: try row.decode("id"),
            platform: try row.decode("platform"),
            appID: try row.decode("app_id"),
            environment: try row.decode("environment"),
            teamID: try row.decode("team_id"),
            keyID: try row.decode("key_id"),
            projectID: try row.decode("project_id"),
            clientEmail: try row.decode("client_email"),
            tokenURI: try row.decode("token_uri"),
            vapidSubject: try row.decode("vapid_subject"),
            vapidPublicKey: try row.decode("vapid_public_key"),
            createdAt: try row.decode("created_at"),
            updatedAt: try row.decode("updated_at")
        )
    }
}
