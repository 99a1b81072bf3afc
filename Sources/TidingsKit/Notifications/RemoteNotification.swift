import Foundation

/// A push Tidings sent, read from the `userInfo` of a remote notification.
///
/// - APNs: badge pushes are `{"aps": {"badge": N}}`; sync and alert pushes
///   add a `tidings` dictionary (`kind`, `watch_id`, `change_id`, `cursor`).
/// - FCM data messages (also when delivered through an iOS FCM SDK): the
///   keys `tidings_kind`, `badge`, `watch_id`, `change_id`, `cursor`,
///   `title` and `body`, every value a string.
public enum RemoteNotification: Sendable, Hashable {
    /// The unread total changed.
    case badge(count: Int)
    /// A watch of `notify: sync` changed: fetch the feed. `cursor` is the
    /// position of the user's newest change.
    case sync(watchID: String?, changeID: String?, cursor: String?)
    /// A watch of `notify: alert` changed; the system shows the alert.
    case alert(title: String?, body: String?, badge: Int?, watchID: String?, changeID: String?)

    /// Reads a notification's `userInfo`; nil when it is not a Tidings push.
    public init?(userInfo: [AnyHashable: Any]) {
        if let kind = userInfo["tidings_kind"] as? String {
            self.init(
                kind: kind, fields: userInfo, badge: Self.integer(userInfo["badge"]), title: userInfo["title"] as? String,
                body: userInfo["body"] as? String)
            return
        }
        let aps = userInfo["aps"] as? [AnyHashable: Any]
        if let fields = userInfo["tidings"] as? [AnyHashable: Any], let kind = fields["kind"] as? String {
            let alert = aps?["alert"] as? [AnyHashable: Any]
            self.init(
                kind: kind, fields: fields, badge: Self.integer(aps?["badge"]), title: alert?["title"] as? String,
                body: alert?["body"] as? String)
            return
        }
        // A badge push carries nothing but the count.
        guard let aps, aps.count == 1, let count = Self.integer(aps["badge"]) else { return nil }
        self = .badge(count: count)
    }

    private init?(kind: String, fields: [AnyHashable: Any], badge: Int?, title: String?, body: String?) {
        let watchID = fields["watch_id"] as? String
        let changeID = fields["change_id"] as? String
        switch kind {
        case "badge":
            guard let badge else { return nil }
            self = .badge(count: badge)
        case "sync":
            self = .sync(watchID: watchID, changeID: changeID, cursor: Self.string(fields["cursor"]))
        case "alert":
            self = .alert(title: title, body: body, badge: badge, watchID: watchID, changeID: changeID)
        default:
            return nil
        }
    }

    /// A number however the push service typed it: a JSON number, or a
    /// string of digits (FCM data values are strings).
    private static func integer(_ value: Any?) -> Int? {
        switch value {
        case let number as Int: number >= 0 ? number : nil
        case let number as NSNumber: Int(exactly: number.doubleValue).flatMap { $0 >= 0 ? $0 : nil }
        case let text as String: Int(text).flatMap { $0 >= 0 ? $0 : nil }
        default: nil
        }
    }

    private static func string(_ value: Any?) -> String? {
        switch value {
        case let text as String: text
        case let number as Int: String(number)
        default: nil
        }
    }
}
