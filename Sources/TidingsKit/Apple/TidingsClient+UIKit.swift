// Apple-only and thin: not built on Linux. Everything it calls
// (registerDevice, DevicePushToken.hex) is tested there.
#if canImport(UIKit) && (os(iOS) || os(visionOS))
// Data, in the public API.
public import Foundation
import UIKit
import UserNotifications

extension TidingsClient {
    /// Asks the user for badges and alerts, then registers with APNs; the
    /// token arrives in `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`,
    /// to be passed to ``registerThisDevice(apnsToken:)``.
    ///
    /// - Returns: Whether the user allowed notifications (badge pushes need it).
    @MainActor
    @discardableResult
    public func registerForRemoteNotifications() async throws -> Bool {
        let granted = try await UNUserNotificationCenter.current().requestAuthorization(options: [.badge, .alert, .sound])
        UIApplication.shared.registerForRemoteNotifications()
        return granted
    }

    /// Registers this install's APNs token, with the bundle id, the device's
    /// name and the current locale.
    ///
    /// - Parameter apnsToken: The token the system handed over.
    @MainActor
    @discardableResult
    public func registerThisDevice(apnsToken: Data) async throws -> Device {
        try await registerDevice(
            .apns(apnsToken), appID: Bundle.main.bundleIdentifier, name: UIDevice.current.name, locale: Locale.current.identifier)
    }
}
#endif
