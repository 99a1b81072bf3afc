/// A partial update of a device: nil leaves a field as it is. For the
/// optional fields, `.some(nil)` clears the stored value.
public struct DeviceChanges: Sendable {
    public var platform: DevicePlatform?
    public var appID: String??
    public var name: String??
    public var locale: String??

    public init(platform: DevicePlatform? = nil, appID: String?? = nil, name: String?? = nil, locale: String?? = nil) {
        self.platform = platform
        self.appID = appID
        self.name = name
        self.locale = locale
    }

    public var isEmpty: Bool {
        platform == nil && appID == nil && name == nil && locale == nil
    }
}
