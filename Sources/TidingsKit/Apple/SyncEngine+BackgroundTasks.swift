// Apple-only and thin: not built on Linux. What it runs, sync(), is
// tested there.
#if canImport(BackgroundTasks) && (os(iOS) || os(tvOS) || os(visionOS))
// TimeInterval, in the public API.
public import Foundation
import BackgroundTasks

extension SyncEngine {
    /// Registers the handler of an app refresh task that runs ``sync()``
    /// and schedules the next refresh. Call it before the app finishes
    /// launching; list `identifier` under `BGTaskSchedulerPermittedIdentifiers`.
    ///
    /// - Parameters:
    ///   - identifier: The task's identifier.
    ///   - interval: The earliest the next refresh may run.
    ///   - didSync: Called with each result (set the badge, store changes).
    nonisolated public func registerAppRefresh(
        identifier: String, every interval: TimeInterval = 15 * 60,
        didSync: @escaping @Sendable (SyncResult) async -> Void = { _ in }
    ) {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
            self.scheduleAppRefresh(identifier: identifier, after: interval)
            // BGTask is not Sendable; Apple documents setTaskCompleted and
            // expirationHandler as safe from any thread.
            nonisolated(unsafe) let task = task
            let work = Task {
                do {
                    await didSync(try await self.sync())
                    task.setTaskCompleted(success: true)
                } catch {
                    task.setTaskCompleted(success: false)
                }
            }
            task.expirationHandler = { work.cancel() }
        }
    }

    /// Asks the system for an app refresh after `interval`.
    ///
    /// - Parameters:
    ///   - identifier: The task's identifier.
    ///   - interval: The earliest it may run.
    nonisolated public func scheduleAppRefresh(identifier: String, after interval: TimeInterval = 15 * 60) {
        let request = BGAppRefreshTaskRequest(identifier: identifier)
        request.earliestBeginDate = Date(timeIntervalSinceNow: interval)
        try? BGTaskScheduler.shared.submit(request)
    }
}
#endif
