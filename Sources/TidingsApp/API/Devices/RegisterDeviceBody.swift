import TidingsDomain
import TidingsHTTPServer

/// `POST /v1/devices` body. An ios or android device sends its `push_token`;
/// a web device sends its browser's `push_subscription` instead (whose
/// endpoint becomes the device's push token), never both.
struct RegisterDeviceBody: Decodable {
    let registration: DeviceRegistration

    enum CodingKeys: String, CodingKey {
        case platform, name, locale
        case pushToken = "push_token"
        case pushSubscription = "push_subscription"
        case appID = "app_id"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let platform = try container.decodeChoice(DevicePlatform.self, forKey: .platform)
        var subscription: WebPushSubscription?
        var pushToken = ""
        if platform == .web {
            if container.contains(.pushToken) {
                throw container.fieldProblem(.pushToken, "must not be given for web devices: push_subscription.endpoint is their token")
            }
            subscription = try container.decode(PushSubscriptionBody.self, forKey: .pushSubscription).subscription
        } else {
            if container.contains(.pushSubscription) {
                throw container.fieldProblem(.pushSubscription, "is only for web devices; \(platform.rawValue) devices send push_token")
            }
            pushToken = try container.decode(String.self, forKey: .pushToken)
            try TextField.validate(pushToken, key: .pushToken, in: container, maxLength: DeviceFieldRules.pushTokenMaxLength)
        }
        let appID = try TextField.decodeOptional(.appID, in: container) {
            try TextField.validate($0, key: .appID, in: container, maxLength: DeviceFieldRules.appIDMaxLength)
        }
        let name = try TextField.decodeOptional(.name, in: container) {
            try TextField.validate($0, key: .name, in: container, maxLength: DeviceFieldRules.nameMaxLength)
        }
        let locale = try TextField.decodeOptional(.locale, in: container) {
            try DeviceFieldRules.validateLocale($0, key: .locale, in: container)
        }
        if let subscription {
            registration = DeviceRegistration(subscription: subscription, appID: appID, name: name, locale: locale)
        } else {
            registration = DeviceRegistration(platform: platform, pushToken: pushToken, appID: appID, name: name, locale: locale)
        }
    }
}

/// A browser's `PushSubscription` as `toJSON()` gives it: `endpoint`,
/// `keys.p256dh`, `keys.auth`, and `expirationTime` (accepted and ignored:
/// a subscription that expires is answered 404 or 410 by its push service,
/// which removes the device). Problems name the field under
/// `push_subscription`.
struct PushSubscriptionBody: Decodable {
    let subscription: WebPushSubscription

    enum CodingKeys: String, CodingKey {
        case endpoint, keys, expirationTime
    }

    enum KeyCodingKeys: String, CodingKey {
        case p256dh, auth
    }

    /// A nested field's key, for problems found after decoding.
    private struct FieldKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let endpoint = try container.decode(String.self, forKey: .endpoint)
        if container.contains(.expirationTime), !(try container.decodeNil(forKey: .expirationTime)) {
            _ = try container.decode(Double.self, forKey: .expirationTime)
        }
        let keysDecoder = try container.superDecoder(forKey: .keys)
        try keysDecoder.rejectUnknownFields(KeyCodingKeys.self)
        let keys = try keysDecoder.container(keyedBy: KeyCodingKeys.self)
        let p256dh = try keys.decode(String.self, forKey: .p256dh)
        let auth = try keys.decode(String.self, forKey: .auth)
        do {
            subscription = try WebPushSubscription(endpoint: endpoint, p256dh: p256dh, auth: auth)
        } catch {
            let path = error.field.split(separator: ".").map { FieldKey(stringValue: String($0)) }
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath + path,
                    debugDescription: error.message,
                    underlyingError: FieldProblem(error.message)
                ))
        }
    }
}
