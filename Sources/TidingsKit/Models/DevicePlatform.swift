/// Where a device receives its pushes. A struct rather than an enum, so
/// that a platform a newer server adds decodes too.
public struct DevicePlatform: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The platform's name in the API.
    public let rawValue: String

    /// Wraps a platform name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// An app on iOS, iPadOS or macOS, pushed through APNs.
    public static let ios = DevicePlatform(rawValue: "ios")
    /// An app on Android, pushed through FCM.
    public static let android = DevicePlatform(rawValue: "android")
    /// A browser, pushed through Web Push.
    public static let web = DevicePlatform(rawValue: "web")

    /// The platform's name.
    public var description: String { rawValue }
}
