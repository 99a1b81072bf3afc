import FoundationEssentials
import TidingsDomain

/// One entry of a device's push log.
struct PushRepresentation: Encodable, Sendable {
    let push: Push

    init(_ push: Push) {
        self.push = push
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, status, badge, reason
        case pushAppID = "push_app_id"
        case watchID = "watch_id"
        case changeID = "change_id"
        case providerID = "provider_id"
        case attemptCount = "attempt_count"
        case nextAttemptAt = "next_attempt_at"
        case lastAttemptAt = "last_attempt_at"
        case completedAt = "completed_at"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// Every key is always present; nulls are explicit.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(push.id.canonicalString, forKey: .id)
        try container.encode(push.pushAppID?.canonicalString, forKey: .pushAppID)
        try container.encode(push.kind.rawValue, forKey: .kind)
        try container.encode(push.status.rawValue, forKey: .status)
        try container.encode(push.badge, forKey: .badge)
        try container.encode(push.watchID?.canonicalString, forKey: .watchID)
        try container.encode(push.changeID?.canonicalString, forKey: .changeID)
        try container.encode(push.reason, forKey: .reason)
        try container.encode(push.providerID, forKey: .providerID)
        try container.encode(push.attemptCount, forKey: .attemptCount)
        try container.encode(push.nextAttemptAt, forKey: .nextAttemptAt)
        try container.encode(push.lastAttemptAt, forKey: .lastAttemptAt)
        try container.encode(push.completedAt, forKey: .completedAt)
        try container.encode(push.createdAt, forKey: .createdAt)
        try container.encode(push.updatedAt, forKey: .updatedAt)
    }
}
