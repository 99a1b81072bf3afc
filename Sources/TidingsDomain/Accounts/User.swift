package import FoundationEssentials

/// A tenant of Tidings: every device, watch and webhook belongs to one.
package struct User: Sendable, Equatable {
    package let id: UUID
    package let name: String
    package let createdAt: Date

    package init(id: UUID, name: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }
}
