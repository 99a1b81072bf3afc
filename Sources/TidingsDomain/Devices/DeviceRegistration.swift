/// What an app reports when it registers (or re-registers) its push token.
package struct DeviceRegistration: Sendable, Equatable {
    package var platform: DevicePlatform
    package var pushToken: String
    /// Optional fields left nil keep what an earlier registration stored.
    package var appID: String?
    package var name: String?
    package var locale: String?
    /// A web device's subscription (its endpoint is `pushToken`); nil for
    /// every other device. A registration replaces the stored keys.
    package var webPush: WebPushSubscription?

    package init(platform: DevicePlatform, pushToken: String, appID: String? = nil, name: String? = nil, locale: String? = nil) {
        self.platform = platform
        self.pushToken = pushToken
        self.appID = appID
        self.name = name
        self.locale = locale
    }

    /// A web device: the subscription's endpoint is its push token.
    package init(subscription: WebPushSubscription, appID: String? = nil, name: String? = nil, locale: String? = nil) {
        self.init(platform: .web, pushToken: subscription.endpoint, appID: appID, name: name, locale: locale)
        self.webPush = subscription
    }
}
