import TidingsDomain
import TidingsHTTPServer
import TidingsSynchronization

/// The range of `interval_seconds` a watch may use, from configuration
/// (`TIDINGS_MIN_INTERVAL`, `TIDINGS_MAX_INTERVAL`) in whole seconds.
struct IntervalBounds: Sendable {
    let minimumSeconds: Int
    let maximumSeconds: Int

    init(configuration: Configuration) {
        // Round inwards so that every accepted value is within the durations.
        minimumSeconds = max(1, Int(configuration.minimumInterval.roundedUpSeconds))
        maximumSeconds = max(minimumSeconds, Int(configuration.maximumInterval.components.seconds))
    }

    /// 300 s, or the nearest bound when configuration excludes it.
    var defaultSeconds: Int {
        min(max(WatchSettings.defaultIntervalSeconds, minimumSeconds), maximumSeconds)
    }

    func validate(_ seconds: Int) throws(HTTPError) {
        guard (minimumSeconds...maximumSeconds).contains(seconds) else {
            throw HTTPError.field("interval_seconds", "must be from \(minimumSeconds) to \(maximumSeconds)")
        }
    }
}
