import Foundation
import TidingsSynchronization

/// Polls `condition` (a database, server or mock state) every `interval`
/// until it holds; false once `timeout` has passed. The one polling helper
/// of the test targets. It returns as soon as the condition holds, so the
/// default timeout only decides how long a failure takes to show: a
/// minute, since a step that takes a second alone took up to five times
/// as long beside 24 other tests on a CI machine (PushDeliveryTests took
/// 21-27 s in two runs and 111-115 s in two others). Speed is measured in
/// benchmarks, not here.
package func eventually(
    timeout: Duration = .seconds(60),
    every interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: interval)
    }
    return try await condition()
}

/// `eventually` for synchronous code (a server's callbacks, a synchronous
/// test): the same loop, sleeping the thread between tries. Named apart so
/// an async test never picks it and blocks a cooperative thread.
package func eventuallyBlocking(
    timeout: Duration = .seconds(60),
    every interval: Duration = .milliseconds(5),
    _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: interval.inSeconds)
    }
    return try condition()
}
