/// What a user owns and a per-user limit counts. The raw value is the
/// resource's name everywhere: in SQL (`user_usage`, `enforce_user_limit`,
/// migration 0018), in the `limits` and `usage` objects of the admin API
/// and in the `limit` member of a 403 problem.
package enum UserResource: String, CaseIterable, Sendable, Hashable {
    case watches
    /// The user's own webhooks; global ones belong to no user.
    case webhooks
    case devices
    /// Keys not revoked.
    case apiKeys = "api_keys"
}
