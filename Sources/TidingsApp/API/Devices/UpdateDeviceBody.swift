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
            changes.platform = try DeviceFieldRules.platform(try container.decode(String.self, forKey: .platform), key: .platform, in: container)
        }
        if container.contains(.appID) {
            let appID = try container.decodeIfPresent(String.self, forKey: .appID)
            if let appID { try TextField.validate(appID, key: .appID, in: container, maxLength: DeviceFieldRules.appIDMaxLength) }
            changes.appID = .some(appID)
        }
        if container.contains(.name) {
            let name = try container.decodeIfPresent(String.self, forKey: .name)
            if let name { try TextField.validate(name, key: .name, in: container, maxLength: DeviceFieldRules.nameMaxLength) }
            changes.name = .some(name)
        }
        if container.contains(.locale) {
            let locale = try container.decodeIfPresent(String.self, forKey: .locale)
            if let locale { try DeviceFieldRules.validateLocale(locale, key: .locale, in: container) }
            changes.locale = .some(locale)
        }
        self.changes = changes
    }
}
