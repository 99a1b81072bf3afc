/// The push service family a device is reached through.
package enum DevicePlatform: String, Sendable, CaseIterable {
    case ios
    case android
    case web
}
