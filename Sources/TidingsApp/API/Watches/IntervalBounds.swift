import TidingsDomain
import TidingsHTTPServer
import TidingsSynchronization

/// The range of `interval_seconds` and `max_interval_seconds` a watch may
/// use, from configuration (`TIDINGS_MIN_INTERVAL`, `TIDINGS_MAX_INTERVAL`)
/// in whole seconds, and the default maximum (`TIDINGS_DEFAULT_MAX_INTERVAL`).
struct IntervalBounds: Sendable {
    let minimumSeconds: Int
    let maximumSeconds: Int
    /// Nil: a watch's maximum defaults to its interval.
    let defaultMaximumSeconds: Int?

    init(configuration: Configuration) {
        // Round inwards so that every accepted value is within the durations.
        minimumSeconds = max(1, Int(configuration.minimumInterval.roundedUpSeconds))
        maximumSeconds = max(minimumSeconds, Int(configuration.maximumInterval.components.seconds))
        defaultMaximumSeconds = configuration.defaultMaximumInterval.map { Int($0.components.seconds) }
    }

    /// 300 s, or the nearest bound when configuration excludes it.
    var defaultSeconds: Int {
        min(max(WatchSettings.defaultIntervalSeconds, minimumSeconds), maximumSeconds)
    }

    /// The maximum of a watch that chose none: the deployment default, but
    /// never below the watch's interval nor above the configured bound.
    func defaultMaximum(interval: Int) -> Int {
        max(interval, min(defaultMaximumSeconds ?? interval, maximumSeconds))
    }

    func validate(_ seconds: Int) throws(HTTPError) {
        try validate(seconds, field: "interval_seconds")
    }

    /// A chosen `max_interval_seconds`: within the same bounds as intervals.
    func validateMaximum(_ seconds: Int) throws(HTTPError) {
        try validate(seconds, field: "max_interval_seconds")
    }

    private func validate(_ seconds: Int, field: String) throws(HTTPError) {
        guard (minimumSeconds...maximumSeconds).contains(seconds) else {
            throw HTTPError.field(field, "must be from \(minimumSeconds) to \(maximumSeconds)")
        }
    }

    /// Sets the pair on `settings` after a create or an update: an unchosen
    /// maximum follows the interval; a chosen one below the interval is a
    /// 422 naming the field the request set (`max_interval_seconds` when it
    /// set that one, else `interval_seconds`).
    func settle(_ settings: inout WatchSettings, maximumGiven: Bool) throws(HTTPError) {
        guard settings.maxIntervalChosen else {
            settings.maxIntervalSeconds = defaultMaximum(interval: settings.intervalSeconds)
            return
        }
        guard settings.maxIntervalSeconds >= settings.intervalSeconds else {
            if maximumGiven {
                throw HTTPError.field("max_interval_seconds", "must not be shorter than interval_seconds (\(settings.intervalSeconds))")
            }
            throw HTTPError.field(
                "interval_seconds",
                "must not be longer than this watch's max_interval_seconds (\(settings.maxIntervalSeconds)); send both to change them together, or max_interval_seconds: null to let it follow"
            )
        }
    }
}
