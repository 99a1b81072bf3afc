// Apple-only and thin: not built on Linux. The count it shows comes from
// badge(), sync() or a push, all tested there.
#if canImport(UserNotifications) && canImport(UIKit) && os(iOS)
import UIKit
import UserNotifications

extension Badge {
    /// Shows the count on the app's icon: `setBadgeCount` from iOS 17,
    /// `applicationIconBadgeNumber` before.
    public func apply() async throws {
        if #available(iOS 17.0, *) {
            try await UNUserNotificationCenter.current().setBadgeCount(count)
        } else {
            let count = count
            await MainActor.run { UIApplication.shared.applicationIconBadgeNumber = count }
        }
    }
}
#endif
