import Foundation

extension TidingsClient {
    private struct Registration: Encodable {
        let platform: DevicePlatform
        let pushToken: String?
        let pushSubscription: WebPushSubscription?
        let appID: String?
        let name: String?
        let locale: String?

        enum CodingKeys: String, CodingKey {
            case platform, name, locale
            case pushToken = "push_token"
            case pushSubscription = "push_subscription"
            case appID = "app_id"
        }
    }

    /// Registers this install for pushes, or refreshes its registration:
    /// the same token again updates the same device. Call it at every
    /// launch with the token the system hands over.
    ///
    /// - Parameters:
    ///   - token: The APNs token (sent as hex), FCM token or web push subscription.
    ///   - appID: The app's bundle id, when the server has push apps for several.
    ///   - name: A name the user recognises.
    ///   - locale: The device's locale, such as `en-GB`.
    /// - Returns: The device.
    @discardableResult
    public func registerDevice(_ token: DevicePushToken, appID: String? = nil, name: String? = nil, locale: String? = nil)
        async throws -> Device
    {
        let registration =
            switch token {
            case .apns(let data):
                Registration(
                    platform: .ios, pushToken: DevicePushToken.hex(data), pushSubscription: nil, appID: appID, name: name, locale: locale)
            case .fcm(let text):
                Registration(platform: .android, pushToken: text, pushSubscription: nil, appID: appID, name: name, locale: locale)
            case .webPush(let subscription):
                Registration(platform: .web, pushToken: nil, pushSubscription: subscription, appID: appID, name: name, locale: locale)
            }
        return try await decoded(Device.self, "POST", "/v1/devices", sending: registration)
    }

    /// Changes a device's app id, name or locale.
    ///
    /// - Parameters:
    ///   - id: The device's id.
    ///   - update: What changes.
    /// - Returns: The device afterwards.
    @discardableResult
    public func updateDevice(id: String, _ update: DeviceUpdate) async throws -> Device {
        try await decoded(Device.self, "PATCH", "/v1/devices/\(Self.pathSegment(id))", sending: update)
    }

    /// Removes a device: it gets no more pushes (at sign-out, say).
    ///
    /// - Parameter id: The device's id.
    public func deleteDevice(id: String) async throws {
        _ = try await data(for: request("DELETE", "/v1/devices/\(Self.pathSegment(id))"))
    }
}
