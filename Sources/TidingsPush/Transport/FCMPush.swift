/// One data message to one Android device through FCM HTTP v1:
/// `{"message": {"token", "data", "android": {"priority", "collapse_key"}}}`.
package struct FCMPush: Sendable, Equatable {
    /// `android.priority`.
    package enum Priority: String, Sendable {
        /// May wait for the device to wake (Doze); for sync and badge updates.
        case normal
        /// Wakes the device; for what the user should see now.
        case high
    }

    /// FCM refuses messages whose data (keys and values) exceed this many bytes.
    package static let maximumDataSize = 4096
    /// The longest registration token accepted, in bytes (they are about
    /// 160 today).
    package static let maximumTokenLength = 4096
    /// Data keys FCM reserves: these exact names, and any key starting with
    /// `google` or `gcm`.
    package static let reservedDataKeys: Set<String> = ["from", "notification", "message_type"]

    /// The FCM registration token.
    package var token: String
    /// String keys and values, delivered to the app as they are.
    package var data: [String: String]
    package var priority: Priority
    /// `android.collapse_key`: a newer message with the same key replaces an
    /// older one still stored for the device.
    package var collapseKey: String?

    package init(token: String, data: [String: String], priority: Priority, collapseKey: String? = nil) {
        self.token = token
        self.data = data
        self.priority = priority
        self.collapseKey = collapseKey
    }
}
