public import Foundation

/// What addresses a device at its push service.
public enum DevicePushToken: Sendable, Hashable {
    /// The token `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`
    /// hands over; sent as lower-case hex.
    case apns(Data)
    /// An FCM registration token.
    case fcm(String)
    /// A browser's push subscription.
    case webPush(WebPushSubscription)

    /// The platform the token belongs to.
    public var platform: DevicePlatform {
        switch self {
        case .apns: .ios
        case .fcm: .android
        case .webPush: .web
        }
    }

    /// An APNs token as the lower-case hex string APNs and Tidings use.
    public static func hex(_ token: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(token.count * 2)
        for byte in token {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
