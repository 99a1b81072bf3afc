/// The changes `TidingsClient.updateDevice(id:_:)` makes: each property
/// left `nil` stays as it is; `.some(nil)` clears it.
public struct DeviceUpdate: Sendable, Hashable, Encodable {
    /// A new app id, or `.some(nil)` to clear it.
    public var appID: String??
    /// A new name, or `.some(nil)` to clear it.
    public var name: String??
    /// A new locale, or `.some(nil)` to clear it.
    public var locale: String??

    /// Creates an update; everything left out stays as it is.
    public init(appID: String?? = nil, name: String?? = nil, locale: String?? = nil) {
        self.appID = appID
        self.name = name
        self.locale = locale
    }

    private enum CodingKeys: String, CodingKey {
        case name, locale
        case appID = "app_id"
    }

    /// Encodes only the fields that change, `null` for those cleared.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeChange(appID, forKey: .appID)
        try container.encodeChange(name, forKey: .name)
        try container.encodeChange(locale, forKey: .locale)
    }
}
