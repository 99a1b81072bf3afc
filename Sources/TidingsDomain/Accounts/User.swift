import FoundationEssentials

/// A tenant of Tidings: every device, watch and webhook belongs to one.
public struct User: Sendable, Equatable {
    public let id: UUID
    public let name: String
    public let createdAt: Date

    public init(id: UUID, name: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }
}
