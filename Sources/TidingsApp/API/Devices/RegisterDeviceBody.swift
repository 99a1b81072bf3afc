import TidingsDomain
import TidingsHTTPServer

/// `POST /v1/devices` body.
struct RegisterDeviceBody: Decodable {
    let registration: DeviceRegistration

    enum CodingKeys: String, CodingKey {
        case platform, name, locale
        case pushToken = "push_token"
        case appID = "app_id"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let platform = try container.decodeChoice(DevicePlatform.self, forKey: .platform)
        let pushToken = try container.decode(String.self, forKey: .pushToken)
        try TextField.validate(pushToken, key: .pushToken, in: container, maxLength: DeviceFieldRules.pushTokenMaxLength)
        let appID = try TextField.decodeOptional(.appID, in: container) {
            try TextField.validate($0, key: .appID, in: container, maxLength: DeviceFieldRules.appIDMaxLength)
        }
        let name = try TextField.decodeOptional(.name, in: container) {
            try TextField.validate($0, key: .name, in: container, maxLength: DeviceFieldRules.nameMaxLength)
        }
        let locale = try TextField.decodeOptional(.locale, in: container) {
            try DeviceFieldRules.validateLocale($0, key: .locale, in: container)
        }
        registration = DeviceRegistration(platform: platform, pushToken: pushToken, appID: appID, name: name, locale: locale)
    }
}
