/// A partial update of a device: nil leaves a field as it is. For the
/// optional fields, `.some(nil)` clears the stored value.
package struct DeviceChanges: Sendable {
    package var platform: DevicePlatform?
    package var appID: String??
    package var name: String??
    package var locale: String??

    package init(platform: DevicePlatform? = nil, appID: String?? = nil, name: String?? = nil, locale: String?? = nil) {
        self.platform = platform
        self.appID = appID
        self.name = name
        self.locale = locale
    }

    package var isEmpty: Bool {
        platform == nil && appID == nil && name == nil && locale == nil
    }
}
