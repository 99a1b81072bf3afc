package import FoundationEssentials
package import TidingsPostgres

/// Deliveries and their attempts: all SQL of the deliveries aggregate. This
/// file holds what the API does (the delivery log, retry, recover, test
/// events); `DeliveryStore+Dispatch.swift` holds the dispatcher's queue.
///
/// Every API statement reaches a delivery only through a webhook of the
/// caller (`WebhookOwner`, the same condition as `WebhookStore`).
package struct DeliveryStore: Sendable {
    /// The channel `queue_events` notifies at commit; dispatchers listen to it.
    package static let notificationChannel = "tidings_deliveries"

    private static let deliveryColumns = """
        d.id, d.webhook_id, d.event_id, e.type AS event_type, d.status, d.attempt_count, d.next_attempt_at,
        d.last_status_code, d.last_error, d.completed_at, d.created_at, d.updated_at
        """

    let database: PostgresClient

    package init(database: PostgresClient) {
        self.database = database
    }

    /// A page of a webhook's deliveries, oldest first, each with its
    /// attempts; nil when the owner has no such webhook.
    package func deliveries(webhookID: UUID, owner: WebhookOwner, filter: DeliveryFilter, page: PageRequest) throws -> Page<Delivery>? {
        try database.withConnection { connection -> Page<Delivery>? in
            guard try Self.ownsWebhook(webhookID, owner, on: connection) else { return nil }
            let rows = try connection.query(
                """
                SELECT \(unsafeSQL: Self.deliveryColumns)
                FROM deliveries d JOIN events e ON e.id = d.event_id
                WHERE d.webhook_id = \(webhookID)
                    AND (\(filter.status?.rawValue)::text IS NULL OR d.status = \(filter.status?.rawValue))
                    AND (\(filter.eventType)::text IS NULL OR e.type = \(filter.eventType))
                    AND (\(filter.since)::timestamptz IS NULL OR d.created_at >= \(filter.since))
                    AND (\(filter.until)::timestamptz IS NULL OR d.created_at < \(filter.until))
                    AND (d.created_at, d.id) > (\(page.after.createdAt), \(page.after.id))
                ORDER BY d.created_at, d.id LIMIT \(page.limit + 1)
                """)
            let deliveries = try Self.withAttempts(rows, on: connection)
            return Page.from(rows: deliveries, limit: page.limit) { PageCursor(createdAt: $0.createdAt, id: $0.id) }
        }
    }

    /// Queues a delivery for an attempt now, whatever its status: one more
    /// attempt for a failed or succeeded one, the next retry brought forward
    /// for a pending one.
    package func retry(deliveryID: UUID, owner: WebhookOwner) throws -> DeliveryRetryResult {
        try database.withTransaction { connection -> DeliveryRetryResult in
            let state = try connection.query(
                """
                SELECT w.disabled_at IS NOT NULL AS disabled, coalesce(d.lease_until > now(), false) AS in_flight
                FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
                WHERE d.id = \(deliveryID) AND (w.user_id = \(owner.userID) OR (w.global AND \(owner.isGlobal)))
                FOR UPDATE OF d
                """
            ).first
            guard let state else { return .notFound }
            if try state.decode("disabled", as: Bool.self) { return .webhookDisabled }
            if try state.decode("in_flight", as: Bool.self) { return .inFlight }
            try connection.execute(
                """
                UPDATE deliveries
                SET status = 'pending', next_attempt_at = now(), completed_at = NULL,
                    lease_owner = NULL, lease_until = NULL, updated_at = now()
                WHERE id = \(deliveryID)
                """)
            try Self.notifyDispatchers(on: connection)
            let rows = try connection.query(
                """
                SELECT \(unsafeSQL: Self.deliveryColumns)
                FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.id = \(deliveryID)
                """)
            // Locked above, so it is there; still a throw, never a trap.
            guard let delivery = try Self.withAttempts(rows, on: connection).first else {
                throw PostgresError(code: .noRow, message: "the statement returned no row where one was expected")
            }
            return .queued(delivery)
        }
    }

    /// Queues every failed delivery of a webhook created at or after
    /// `since` for one more attempt; the number queued, or nil when the
    /// owner has no such webhook. Those of a disabled webhook go out once
    /// it is enabled again.
    package func recover(webhookID: UUID, owner: WebhookOwner, since: Date) throws -> Int? {
        try database.withTransaction { connection -> Int? in
            guard try Self.ownsWebhook(webhookID, owner, on: connection) else { return nil }
            let requeued = try connection.execute(
                """
                UPDATE deliveries
                SET status = 'pending', next_attempt_at = now(), completed_at = NULL, updated_at = now()
                WHERE webhook_id = \(webhookID) AND status = 'failed' AND created_at >= \(since)
                """)
            if requeued > 0 { try Self.notifyDispatchers(on: connection) }
            return requeued
        }
    }

    /// The outcome of asking for a test event.
    package enum TestEventResult: Sendable {
        case queued(eventID: UUID, deliveryID: UUID)
        case webhookDisabled
        case notFound
    }

    /// Sends a `webhook.test` event to this webhook only.
    package func sendTestEvent(webhookID: UUID, owner: WebhookOwner) throws -> TestEventResult {
        try database.withTransaction { connection -> TestEventResult in
            let webhook = try connection.query(
                """
                SELECT user_id, disabled_at IS NOT NULL AS disabled FROM webhooks
                WHERE id = \(webhookID) AND (user_id = \(owner.userID) OR (global AND \(owner.isGlobal)))
                FOR SHARE
                """
            ).first
            guard let webhook else { return .notFound }
            if try webhook.decode("disabled", as: Bool.self) { return .webhookDisabled }
            let userID: UUID? = try webhook.decode("user_id")
            let eventID: UUID = try connection.query(
                """
                SELECT e.id FROM queue_events(ARRAY[ROW(
                    \(userID)::uuid, \(WebhookEventType.webhookTest.rawValue)::text,
                    jsonb_build_object('webhook_id', \(webhookID)::uuid, 'message', 'A test event sent on request.'),
                    \(webhookID)::uuid, NULL
                )::outbox_event]) AS e(id)
                """
            ).single().decode("id")
            // A statement apart: the deliveries the function inserted are
            // invisible to the statement that called it.
            let deliveryID: UUID = try connection.query("SELECT id FROM deliveries WHERE event_id = \(eventID)").single().decode("id")
            return .queued(eventID: eventID, deliveryID: deliveryID)
        }
    }

    // MARK: Shared

    static func ownsWebhook(_ id: UUID, _ owner: WebhookOwner, on connection: PostgresConnection) throws -> Bool {
        try !connection.query(
            """
            SELECT 1 FROM webhooks WHERE id = \(id) AND (user_id = \(owner.userID) OR (global AND \(owner.isGlobal)))
            """
        ).isEmpty
    }

    /// Wakes dispatchers at commit, as `queue_events` does.
    static func notifyDispatchers(on connection: PostgresConnection) throws {
        _ = try connection.query("SELECT pg_notify(\(notificationChannel), '')")
    }

    /// The deliveries of `rows` with their latest attempts, at most
    /// `DeliveryAttempt.listedPerDelivery` each, bodies cut to
    /// `DeliveryAttempt.listedBodyLimit` characters: what one listing holds
    /// in memory stays bounded however often a delivery was retried.
    private static func withAttempts(_ rows: PostgresRows, on connection: PostgresConnection) throws -> [Delivery] {
        let ids = try rows.map { try $0.decode("id", as: UUID.self) }
        var attempts: [UUID: [DeliveryAttempt]] = [:]
        if !ids.isEmpty {
            let attemptRows = try connection.query(
                """
                SELECT a.id, a.delivery_id, a.event_id, a.attempted_at, a.duration_ms, a.status_code, a.error,
                    left(a.response_body, \(DeliveryAttempt.listedBodyLimit)) AS response_body,
                    a.response_truncated
                        OR coalesce(length(a.response_body) > \(DeliveryAttempt.listedBodyLimit), false) AS response_truncated
                FROM unnest(\(PostgresArray(ids))::uuid[]) AS listed(id)
                CROSS JOIN LATERAL (
                    SELECT * FROM delivery_attempts
                    WHERE delivery_id = listed.id
                    ORDER BY attempted_at DESC, id DESC
                    LIMIT \(DeliveryAttempt.listedPerDelivery)
                ) a
                ORDER BY a.attempted_at, a.id
                """)
            for row in attemptRows {
                let attempt = DeliveryAttempt(
                    id: try row.decode("id"),
                    eventID: try row.decode("event_id"),
                    attemptedAt: try row.decode("attempted_at"),
                    durationMilliseconds: try row.decode("duration_ms"),
                    statusCode: try row.decode("status_code"),
                    error: try row.decode("error"),
                    responseBody: try row.decode("response_body"),
                    responseTruncated: try row.decode("response_truncated")
                )
                attempts[try row.decode("delivery_id"), default: []].append(attempt)
            }
        }
        return try rows.map { row in
            let id: UUID = try row.decode("id")
            let status = try DeliveryStatus.decode(try row.decode("status"))
            return Delivery(
                id: id,
                webhookID: try row.decode("webhook_id"),
                eventID: try row.decode("event_id"),
                eventType: try row.decode("event_type"),
                status: status,
                attemptCount: try row.decode("attempt_count"),
                nextAttemptAt: status == .pending ? try row.decode("next_attempt_at") : nil,
                lastStatusCode: try row.decode("last_status_code"),
                lastError: try row.decode("last_error"),
                completedAt: try row.decode("completed_at"),
                createdAt: try row.decode("created_at"),
                updatedAt: try row.decode("updated_at"),
                attempts: attempts[id] ?? []
            )
        }
    }
}

extension DeliveryStatus {
    static func decode(_ text: String) throws(PostgresError) -> DeliveryStatus {
        guard let status = DeliveryStatus(rawValue: text) else {
            throw PostgresError(code: .decoding, message: "\(text.prefix(20)) is not a delivery status")
        }
        return status
    }
}
