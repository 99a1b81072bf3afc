/// What an app reports when it registers (or re-registers) its push token.
package struct DeviceRegistration: Sendable, Equatable {
    package var platform: DevicePlatform
    package var pushToken: String
    /// Optional fields left nil keep what an earlier registration stored.
    package var appID: String?
    package var name: String?
    package var locale: String?

    package init(platform: DevicePlatform, pushToken: String, appID: String? = nil, name: String? = nil, locale: String? = nil) {
        self.platform = platform
        self.pushToken = pushToken
        self.appID = appID
        self.name = name
        self.locale = locale
    }
}
