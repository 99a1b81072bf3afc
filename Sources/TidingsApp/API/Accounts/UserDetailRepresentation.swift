import FoundationEssentials
import TidingsDomain

/// A user as the admin's `GET` and `PATCH /v1/users/{id}` show it: the user,
/// its effective limits (its own where an admin set one, else the
/// deployment's), which of them are its own, and what it has of each.
struct UserDetailRepresentation: Encodable, Sendable {
    let user: UserRepresentation
    let limits: [String: Int]
    let limitOverrides: [String: Int]
    let usage: [String: Int]

    init(_ user: User, quota: UserQuota, defaults: UserLimits) {
        self.user = UserRepresentation(user)
        let effective = defaults.overridden(by: quota.overrides)
        limits = Dictionary(uniqueKeysWithValues: UserResource.allCases.map { ($0.rawValue, effective[$0]) })
        limitOverrides = Dictionary(uniqueKeysWithValues: quota.overrides.map { ($0.key.rawValue, $0.value) })
        usage = Dictionary(uniqueKeysWithValues: UserResource.allCases.map { ($0.rawValue, quota.usage[$0] ?? 0) })
    }

    enum CodingKeys: String, CodingKey {
        case id, name, limits, usage
        case createdAt = "created_at"
        case limitOverrides = "limit_overrides"
    }

    /// The user's own members at the top level, beside the limits.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user.id, forKey: .id)
        try container.encode(user.name, forKey: .name)
        try container.encode(user.createdAt, forKey: .createdAt)
        try container.encode(limits, forKey: .limits)
        try container.encode(limitOverrides, forKey: .limitOverrides)
        try container.encode(usage, forKey: .usage)
    }
}
