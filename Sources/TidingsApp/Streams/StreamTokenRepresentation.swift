import FoundationEssentials

/// `{"token", "expires_at"}`: a one-time token that opens one event stream
/// as `GET /v1/events?token=...`.
struct StreamTokenRepresentation: Encodable, Sendable {
    let token: String
    let expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case token
        case expiresAt = "expires_at"
    }
}
