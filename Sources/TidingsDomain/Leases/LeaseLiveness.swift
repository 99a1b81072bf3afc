/// When a lease owner (a poller or a webhook dispatcher) may start work,
/// and when others may treat it as dead and free its leases. Pure logic:
/// the clock is passed in.
///
/// A beat that the database confirmed (the owner's row was still there)
/// keeps the owner alive for `staleAfter` from the moment it was *sent*
/// (the database's `now()` is no earlier than that). Work may start only
/// while alive. Others free the owner's leases once its last beat is older
/// than `deadAfter`, `staleAfter` plus `inFlightGrace`, the longest work
/// started while alive may still run: so nothing it started is still in
/// flight when another process may claim the same row.
package struct LeaseLiveness: Sendable, Equatable {
    /// How often an owner beats.
    package static let beatInterval: Duration = .seconds(1)
    /// How long a confirmed beat lets an owner start work: two beats may be
    /// late before it pauses.
    package static let defaultStaleAfter: Duration = .seconds(3)
    /// Keeps a configured grace far from `Duration`'s range and from an
    /// interval in milliseconds overflowing.
    package static let longestGrace: Duration = .seconds(86_400)

    package let staleAfter: Duration
    package let inFlightGrace: Duration
    /// When the last confirmed beat was sent; nil before the first one and
    /// after the owner learnt its row had been reaped.
    package private(set) var lastBeat: ContinuousClock.Instant?

    package init(staleAfter: Duration = Self.defaultStaleAfter, inFlightGrace: Duration) {
        self.staleAfter = min(max(staleAfter, .zero), Self.longestGrace)
        self.inFlightGrace = min(max(inFlightGrace, .zero), Self.longestGrace)
    }

    /// How old the last beat may be before others free this owner's leases.
    package var deadAfter: Duration {
        staleAfter + inFlightGrace
    }

    /// The last instant at which work may start; nil while nothing may.
    package var startBy: ContinuousClock.Instant? {
        lastBeat.map { $0 + staleAfter }
    }

    package func mayStart(at now: ContinuousClock.Instant) -> Bool {
        startBy.map { now < $0 } ?? false
    }

    /// The database confirmed a beat sent at `sentAt`. Beats confirmed out of
    /// order never move liveness back.
    package mutating func confirmed(sentAt: ContinuousClock.Instant) {
        lastBeat = max(lastBeat ?? sentAt, sentAt)
    }

    /// The owner's row was gone: another process judged it dead and freed
    /// its leases. Nothing may start until a new registration is confirmed.
    package mutating func reaped() {
        lastBeat = nil
    }

    /// Whether a row whose last beat was at `heartbeatAt` is dead at `now`
    /// (what the reaper asks in SQL, `heartbeat_at < now() - dead_after`).
    package static func isDead(heartbeatAt: ContinuousClock.Instant, deadAfter: Duration, now: ContinuousClock.Instant) -> Bool {
        heartbeatAt < now - deadAfter
    }
}
