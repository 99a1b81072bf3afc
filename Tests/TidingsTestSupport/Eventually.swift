/// Polls `condition` (a database, server or mock state) every `interval`
/// until it holds; false once `timeout` has passed. The one polling helper
/// of the test targets.
package func eventually(
    timeout: Duration = .seconds(20),
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
