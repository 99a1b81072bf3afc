public import Foundation

/// One event of the user's stream: the JSON a webhook receives for it,
/// with its position.
public struct TidingsEvent: Sendable, Hashable {
    /// The event's position in the user's order: the same as the sync
    /// feed's cursors, and what a reconnection resumes after.
    public let id: String?
    /// The event's type.
    public let type: TidingsEventType
    /// The whole message as JSON: `{"type", "timestamp", "data"}`.
    public let json: Data

    /// Creates an event, as the stream delivers one.
    public init(id: String?, type: TidingsEventType, json: Data) {
        self.id = id
        self.type = type
        self.json = json
    }

    private struct Envelope<Payload: Decodable>: Decodable {
        let data: Payload
    }

    /// Decodes the event's `data` object as `T`.
    ///
    /// - Throws: ``TidingsError/invalidResponse(status:reason:)`` when it
    ///   does not decode.
    public func decodeData<T: Decodable>(as type: T.Type) throws -> T {
        try TidingsCoding.decode(Envelope<T>.self, from: json, status: 200).data
    }

    /// The new unread total of a `badge.updated` event.
    public var badgeCount: Int? {
        guard type == .badgeUpdated else { return nil }
        struct Count: Decodable { let count: Int }
        return try? decodeData(as: Count.self).count
    }
}
