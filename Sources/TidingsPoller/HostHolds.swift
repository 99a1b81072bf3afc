/// Retry-After holds by host as a value-type state machine, the clock
/// passed in: a hold closes only the host (`host:port`) that sent it, for
/// at most `longest` (`TIDINGS_MAX_RETRY_AFTER`), so a tenant's own server
/// under a shared domain, or an origin's per-address limit that one
/// tenant's requests tripped, cannot pause everyone else's watches on the
/// site for a day. The site keeps only its concurrency cap and gap
/// (`HostGateState`).
///
/// Expired holds are dropped when looked up, and all of them once the
/// table has doubled since the last sweep, so memory follows the hosts
/// held now.
struct HostHolds<Instant: Comparable & Sendable>: Sendable {
    private var until: [String: Instant] = [:]
    private var sweepAt = 64

    init() {}

    var count: Int { until.count }

    /// Nothing starts at `host` before `instant`, or `now + longest` when
    /// that is sooner; a later hold already set stays.
    mutating func hold(_ host: String, until instant: Instant, now: Instant, atMost longest: (Instant) -> Instant) {
        let capped = min(instant, longest(now))
        if until[host].map({ capped > $0 }) ?? true {
            until[host] = capped
        }
        if until.count >= sweepAt {
            until = until.filter { $0.value > now }
            sweepAt = max(64, until.count * 2)
        }
    }

    /// When `host` opens again, nil when it is not held at `now`.
    mutating func heldUntil(_ host: String, now: Instant) -> Instant? {
        guard let instant = until[host] else { return nil }
        guard now < instant else {
            until[host] = nil
            return nil
        }
        return instant
    }
}
