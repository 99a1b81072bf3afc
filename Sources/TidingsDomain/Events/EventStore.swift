package import FoundationEssentials
package import TidingsPostgres

/// Reading a user's events in the user's one order (migration 0031): what
/// the event stream sends. Events are written only by `queue_events`.
package struct EventStore: Sendable {
    /// NOTIFYed at commit by `queue_events` with the id of each user whose
    /// events it queued.
    package static let notificationChannel = "tidings_events"

    private let database: PostgresClient

    package init(database: PostgresClient) {
        self.database = database
    }

    /// Up to `limit` of the user's events after `position`, in order.
    package func events(userID: UUID, after position: FeedPosition, limit: Int) throws -> [StreamEvent] {
        let rows = try database.query(
            """
            SELECT user_position, type, data::text AS data, iso8601(created_at) AS timestamp
            FROM events
            WHERE user_id = \(userID) AND user_position > \(position.value)
            ORDER BY user_position
            LIMIT \(limit)
            """)
        return try rows.map { row in
            let type: String = try row.decode("type")
            guard let eventType = WebhookEventType(rawValue: type) else {
                throw PostgresError(code: .decoding, message: "\(type.prefix(40)) is not an event type")
            }
            return StreamEvent(
                position: FeedPosition(try row.decode("user_position")),
                type: eventType,
                body: EventBody.json(type: type, timestamp: try row.decode("timestamp"), data: try row.decode("data"))
            )
        }
    }

    /// The user's newest position and how far retention trimmed; nil when
    /// the user is gone.
    package func bounds(userID: UUID) throws -> UserOrderBounds? {
        try database.query("SELECT last_position, trimmed_through FROM badges WHERE user_id = \(userID)").first
            .map(BadgeStore.order(from:))
    }
}
