/// A long-lived part of the process (a server, an engine, a listener, a
/// pool): started once, stopped once, by a `ServiceGroup`.
///
/// `start` returns once the service runs (its threads started, its port
/// bound) or throws when it cannot. `stop` ends it: work in flight may
/// finish until `deadline`, then the service lets go of the rest (releases
/// leases, closes connections) and returns. `stop` is safe to call more
/// than once and on a service never started.
package protocol Service: AnyObject, Sendable {
    func start() throws
    func stop(deadline: ContinuousClock.Instant)
}

extension Service {
    /// Stops, giving work in flight `timeout` (tests and tools).
    package func stop(within timeout: Duration = .seconds(5)) {
        stop(deadline: .now + timeout)
    }
}
