public import Foundation

/// A registered install of the app: where the user's pushes go.
public struct Device: Sendable, Hashable, Codable, Identifiable {
    /// The device's id.
    public let id: String
    /// How it is pushed to.
    public let platform: DevicePlatform
    /// The APNs token as hex, the FCM token, or a browser's push endpoint.
    public let pushToken: String
    /// The app's bundle or package id, when registered with one.
    public let appID: String?
    /// A name the user recognises, such as "Ada's iPhone".
    public let name: String?
    /// The device's locale, such as `en-GB`.
    public let locale: String?
    /// When the device last registered.
    public let lastSeenAt: Date
    /// When the device first registered.
    public let createdAt: Date
    /// When the device last changed.
    public let updatedAt: Date

    private enum CodingKeys: String, CodingKey {
        case id, platform, name, locale
        case pushToken = "push_token"
        case appID = "app_id"
        case lastSeenAt = "last_seen_at"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
