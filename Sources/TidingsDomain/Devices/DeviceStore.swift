package import FoundationEssentials
package import TidingsPostgres

/// A user's devices: all SQL for the devices aggregate. Every statement is
/// scoped by the owning user, so one user's id never reaches another's rows.
package struct DeviceStore: Sendable {
    private static let columns = "id, user_id, platform, push_token, app_id, name, locale, last_seen_at, created_at, updated_at"

    private let database: PostgresClient
    private let secrets: StoredSecrets
    private let registrations: BatchingQueue<PendingRegistration, RegisteredDevice>

    /// `secrets` seals a web device's `keys.auth` (`devices.web_push_auth`).
    package init(database: PostgresClient, secrets: StoredSecrets) {
        self.database = database
        self.secrets = secrets
        registrations = BatchingQueue(
            runBatch: { try Self.register($0, on: database) },
            // One upsert statement, in register_devices, for a batch of one too.
            runOne: { try Self.registerInOneCall([$0], on: database)[0] }
        )
    }

    /// Registers a push token, or refreshes the device that already has it
    /// (same id, `last_seen_at` now). `created` tells the two apart.
    ///
    /// Concurrent registrations are committed together (group commit,
    /// `register_devices` of migrations 0011 and 0013): the commit stays
    /// durable, but one WAL flush serves the whole batch, and
    /// re-registrations of one token no longer queue behind each other's
    /// commits for the row lock.
    ///
    /// Throws `UserLimitExceeded` when the token is new and the user already
    /// has as many devices as it may (migration 0018); a re-registration
    /// updates its device and is never refused. A batch in which one
    /// registration goes past its user's limit fails as a whole, and
    /// `BatchingQueue` then runs each registration alone, so only that one
    /// is refused.
    ///
    /// A token belongs to one device per (platform, app_id): registered by
    /// another user than the one holding it, it moves to the new user, and
    /// the previous owner's device is removed and announced to that owner as
    /// `device.invalidated`, in the registration's transaction (migration
    /// 0034). Registrations of one token take turns on its advisory lock, so
    /// concurrent ones from two users leave one device.
    ///
    /// A web device's `keys.auth` is sealed here, before it joins a batch;
    /// its keys replace the stored ones (and any other registration clears
    /// them), so a device's keys are always its latest subscription's.
    package func register(userID: UUID, _ registration: DeviceRegistration) throws -> (device: Device, created: Bool) {
        let sealedAuth = try registration.webPush.map { try secrets.sealWebPushAuth($0.auth) }
        let registered = try UserLimitExceeded.mapping(.devices) {
            try registrations.submit(PendingRegistration(userID: userID, registration: registration, sealedAuth: sealedAuth))
        }
        return (registered.device, registered.created)
    }

    struct PendingRegistration: Sendable, Encodable, Equatable {
        let userID: UUID
        let registration: DeviceRegistration
        /// `registration.webPush?.auth`, sealed; the plain one never
        /// reaches the database.
        var sealedAuth: String? = nil

        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case platform
            case pushToken = "push_token"
            case appID = "app_id"
            case name, locale
            case webPushP256dh = "web_push_p256dh"
            case webPushAuth = "web_push_auth"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(userID.uuidString, forKey: .userID)
            try container.encode(registration.platform.rawValue, forKey: .platform)
            try container.encode(registration.pushToken, forKey: .pushToken)
            try container.encode(registration.appID, forKey: .appID)
            try container.encode(registration.name, forKey: .name)
            try container.encode(registration.locale, forKey: .locale)
            // Both or neither: a subscription's keys with its sealed secret.
            if let subscription = registration.webPush, let sealedAuth {
                try container.encode(subscription.p256dh, forKey: .webPushP256dh)
                try container.encode(sealedAuth, forKey: .webPushAuth)
            } else {
                try container.encodeNil(forKey: .webPushP256dh)
                try container.encodeNil(forKey: .webPushAuth)
            }
        }
    }

    private struct RegisteredDevice: Sendable {
        let device: Device
        let created: Bool
    }

    /// Several registrations in one commit, applied in order; one result
    /// per registration, in the same order.
    ///
    /// A registration identical to the last one of the same user and token
    /// before it in the batch would leave the row exactly as that one did
    /// (every field is the same, and `now()` is the transaction's time), so
    /// it is not sent again: it gets that one's row, as an update. A client
    /// re-registering on every app start makes such batches common.
    private static func register(_ batch: [PendingRegistration], on database: PostgresClient) throws -> [RegisteredDevice] {
        let (distinct, distinctIndex) = withoutRepeats(batch)
        let registered = try registerInOneCall(distinct, on: database)
        var answered = Set<Int>()
        return distinctIndex.map { index in
            let result = registered[index]
            let first = answered.insert(index).inserted
            return first ? result : RegisteredDevice(device: result.device, created: false)
        }
    }

    /// The registrations to send, and for each of `batch` the index of the
    /// one that answers it: a repeat of the latest registration of the same
    /// user and token is answered by that one.
    static func withoutRepeats(_ batch: [PendingRegistration]) -> (distinct: [PendingRegistration], answeredBy: [Int]) {
        var distinct: [PendingRegistration] = []
        var answeredBy: [Int] = []
        var latestForToken: [TokenKey: Int] = [:]
        for pending in batch {
            let key = TokenKey(userID: pending.userID, pushToken: pending.registration.pushToken)
            if let index = latestForToken[key], distinct[index] == pending {
                answeredBy.append(index)
            } else {
                distinct.append(pending)
                latestForToken[key] = distinct.count - 1
                answeredBy.append(distinct.count - 1)
            }
        }
        return (distinct, answeredBy)
    }

    private struct TokenKey: Hashable {
        let userID: UUID
        let pushToken: String
    }

    /// `register_devices` (migrations 0011 and 0013): one statement, one commit.
    private static func registerInOneCall(_ batch: [PendingRegistration], on database: PostgresClient) throws -> [RegisteredDevice] {
        let registrations = String(decoding: try JSONEncoder().encode(batch), as: UTF8.self)
        let rows = try database.query("SELECT * FROM register_devices(\(registrations)::jsonb)")
        guard rows.count == batch.count else {
            throw PostgresError(code: .decoding, message: "register_devices returned \(rows.count) rows for \(batch.count) registrations")
        }
        return try rows.map { row in
            RegisteredDevice(device: try Self.device(from: row), created: try row.decode("created", as: Bool.self))
        }
    }

    package func device(id: UUID, userID: UUID) throws -> Device? {
        try database.query(
            """
            SELECT \(unsafeSQL: Self.columns) FROM devices WHERE id = \(id) AND user_id = \(userID)
            """
        ).first.map(Self.device(from:))
    }

    package func list(userID: UUID, _ page: PageRequest) throws -> Page<Device> {
        let rows = try database.query(
            """
            SELECT \(unsafeSQL: Self.columns) FROM devices
            WHERE user_id = \(userID) AND (created_at, id) > (\(page.after.createdAt), \(page.after.id))
            ORDER BY created_at, id LIMIT \(page.limit + 1)
            """)
        return Page.from(rows: try rows.map(Self.device(from:)), limit: page.limit) {
            PageCursor(createdAt: $0.createdAt, id: $0.id)
        }
    }

    package enum UpdateOutcome: Sendable {
        case updated(Device)
        case notFound
        /// The platform cannot change between web and the others: a web
        /// device is a browser's subscription (endpoint and keys), an ios or
        /// android device an app's token. Register the device anew instead.
        case platformChangeRefused(from: DevicePlatform, to: DevicePlatform)
    }

    /// Applies the changes present, in one transaction with the row locked.
    /// A new platform or app_id under which another user holds the token
    /// moves it here, as a registration would (migration 0034); the token's
    /// lock comes first, as for registrations.
    package func update(id: UUID, userID: UUID, _ changes: DeviceChanges) throws -> UpdateOutcome {
        try database.withTransaction { connection in
            try connection.execute(
                """
                SELECT lock_device_tokens(ARRAY[push_token]) FROM devices WHERE id = \(id) AND user_id = \(userID)
                """)
            guard
                let current = try connection.query(
                    """
                    SELECT platform FROM devices WHERE id = \(id) AND user_id = \(userID) FOR UPDATE
                    """
                ).first
            else { return .notFound }
            let platform: DevicePlatform = try current.decode("platform")
            if let wanted = changes.platform, (wanted == .web) != (platform == .web) {
                return .platformChangeRefused(from: platform, to: wanted)
            }
            guard !changes.isEmpty else {
                return try connection.query(
                    """
                    SELECT \(unsafeSQL: Self.columns) FROM devices WHERE id = \(id)
                    """
                ).first.map(Self.device(from:)).map(UpdateOutcome.updated) ?? .notFound
            }
            if changes.platform != nil || changes.appID != nil {
                try connection.execute(
                    """
                    SELECT move_device_tokens(jsonb_build_array(jsonb_build_object(
                        'user_id', user_id, 'platform', coalesce(\(changes.platform)::text, platform),
                        'app_id', CASE WHEN \(changes.appID != nil)::boolean THEN \(changes.appID ?? nil)::text ELSE app_id END,
                        'push_token', push_token)))
                    FROM devices WHERE id = \(id)
                    """)
            }
            return try connection.query(
                """
                UPDATE devices SET
                    platform = coalesce(\(changes.platform)::text, platform),
                    app_id = CASE WHEN \(changes.appID != nil)::boolean THEN \(changes.appID ?? nil)::text ELSE app_id END,
                    name = CASE WHEN \(changes.name != nil)::boolean THEN \(changes.name ?? nil)::text ELSE name END,
                    locale = CASE WHEN \(changes.locale != nil)::boolean THEN \(changes.locale ?? nil)::text ELSE locale END,
                    updated_at = now()
                WHERE id = \(id) AND user_id = \(userID)
                RETURNING \(unsafeSQL: Self.columns)
                """
            ).first.map(Self.device(from:)).map(UpdateOutcome.updated) ?? .notFound
        }
    }

    package func delete(id: UUID, userID: UUID) throws -> Bool {
        try database.withConnection { try $0.execute("DELETE FROM devices WHERE id = \(id) AND user_id = \(userID)") } == 1
    }

    /// Removes the user's devices holding any of `pushTokens` (tokens a push
    /// gateway reported dead), announces each as `device.invalidated`, and
    /// returns them; unknown tokens are skipped.
    package func invalidate(userID: UUID, pushTokens: [String]) throws -> [Device] {
        // The tokens travel as one JSON array parameter: a list of any length
        // in a single bind, with JSON's escaping instead of array-literal quoting.
        let tokens = String(decoding: try JSONEncoder().encode(pushTokens), as: UTF8.self)
        return try database.withTransaction { connection in
            try connection.query(
                """
                SELECT \(unsafeSQL: Self.columns) FROM invalidate_devices(ARRAY(
                    SELECT d.id FROM devices d
                    JOIN (SELECT DISTINCT value AS token FROM jsonb_array_elements_text(\(tokens)::jsonb)) AS dead
                        ON md5(d.push_token) = md5(dead.token) AND d.push_token = dead.token
                    WHERE d.user_id = \(userID)
                ), \(Self.gatewayInvalidationReason))
                """
            ).map(Self.device(from:))
        }
    }

    /// The `reason` of `device.invalidated` for tokens a gateway reported.
    package static let gatewayInvalidationReason = "reported dead through POST /v1/devices/invalidations"

    private static func device(from row: PostgresRow) throws -> Device {
        Device(
            id: try row.decode("id"),
            userID: try row.decode("user_id"),
            platform: try row.decode("platform"),
            pushToken: try row.decode("push_token"),
            appID: try row.decode("app_id"),
            name: try row.decode("name"),
            locale: try row.decode("locale"),
            lastSeenAt: try row.decode("last_seen_at"),
            createdAt: try row.decode("created_at"),
            updatedAt: try row.decode("updated_at")
        )
    }
}
