/// What an app reports when it registers (or re-registers) its push token.
public struct DeviceRegistration: Sendable, Equatable {
    public var platform: DevicePlatform
    public var pushToken: String
    /// Optional fields left nil keep what an earlier registration stored.
    public var appID: String?
    public var name: String?
    public var locale: String?

    public init(platform: DevicePlatform, pushToken: String, appID: String? = nil, name: String? = nil, locale: String? = nil) {
        self.platform = platform
        self.pushToken = pushToken
        self.appID = appID
        self.name = name
        self.locale = locale
    }
}
