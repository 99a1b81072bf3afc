import TidingsDomain
import TidingsHTTPServer

/// `PATCH /v1/devices/{id}` body: only the fields present change, `null`
/// clears an optional one. The push token is not among them: a new token is
/// a new registration.
struct UpdateDeviceBody: Decodable {
    let changes: DeviceChanges

    enum CodingKeys: String, CodingKey {
        case platform, name, locale
        case appID = "app_id"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var changes = DeviceChanges()
        if container.contains(.platform) {
            changes.platform = try container.decodeChoice(DevicePlatform.self, forKey: .platform)
        }
        changes.appID = try TextField.decodeClearable(.appID, in: container) {
            try TextField.validate($0, key: .appID, in: container, maxLength: DeviceFieldRules.appIDMaxLength)
        }
        changes.name = try TextField.decodeClearable(.name, in: container) {
            try TextField.validate($0, key: .name, in: container, maxLength: DeviceFieldRules.nameMaxLength)
        }
        changes.locale = try TextField.decodeClearable(.locale, in: container) {
            try DeviceFieldRules.validateLocale($0, key: .locale, in: container)
        }
        self.changes = changes
    }
}
