/// The push service family a device is reached through.
public enum DevicePlatform: String, Sendable, CaseIterable {
    case ios
    case android
    case web
}
