public import Foundation

/// A value behind an `NSLock`: the one lock of the library.
/// `Synchronization.Mutex` would need iOS 18, and an app's deployment
/// target is usually older.
///
/// `@unchecked Sendable`: every access to `value` holds `lock`.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
