import FoundationEssentials
import TidingsCrypto
import TidingsDomain
import TidingsObservability
import TidingsSynchronization

/// API keys verified against the database within the last `lifetime`, so
/// that most requests skip the key lookup.
///
/// Revocation has to stay immediate on every replica, so the cache serves
/// entries only while it is *trusted*: while `CredentialRevocationListener`
/// holds a LISTEN session that reports revoked keys and deleted users from
/// any replica. Losing that session empties and distrusts the cache until a
/// new session listens. Every invalidation moves a generation, and a lookup
/// stores its result only if no invalidation happened since it started, so
/// a lookup that raced a revocation cannot put the revoked key back.
/// Entries are keyed by the token's SHA-256; raw tokens are never kept.
final class CredentialCache: Sendable {
    private struct Entry {
        let key: AuthenticatedKey
        let expiresAt: ContinuousClock.Instant
        /// When `last_used_at` was last brought up to date for this key.
        var markedUsedAt: ContinuousClock.Instant
    }

    private struct State {
        var entries: [Digest: Entry] = [:]
        var generation: UInt64 = 0
        var trusted = false
    }

    let lifetime: Duration
    let capacity: Int
    /// How often a cached key still records its use (`last_used_at`).
    static let usageMarkInterval: Duration = .seconds(60)
    /// Taken by every authenticated request: see AdaptiveMutex.
    private let state = AdaptiveMutex(State())
    private let lookups: Counter?

    init(lifetime: Duration = .seconds(60), capacity: Int = 10_000, metrics: MetricsRegistry? = nil) {
        self.lifetime = lifetime
        self.capacity = capacity
        lookups = metrics?.counter(
            "tidings_credential_cache_lookups_total",
            help: "API key checks answered from memory (hit) or by the database (miss)."
        )
    }

    /// The cached key for a token hash, if trusted and fresh. `markUsed` is
    /// true when the caller should record the key's use in the database.
    func lookup(_ tokenHash: Digest, now: ContinuousClock.Instant = .now) -> (key: AuthenticatedKey, markUsed: Bool)? {
        let found = find(tokenHash, now: now)
        lookups?.increment(labels: ["result": found == nil ? "miss" : "hit"])
        return found
    }

    private func find(_ tokenHash: Digest, now: ContinuousClock.Instant) -> (key: AuthenticatedKey, markUsed: Bool)? {
        state.withLock { state in
            guard state.trusted, var entry = state.entries[tokenHash] else { return nil }
            guard entry.expiresAt > now else {
                state.entries[tokenHash] = nil
                return nil
            }
            let markUsed = now - entry.markedUsedAt >= Self.usageMarkInterval
            if markUsed {
                entry.markedUsedAt = now
                state.entries[tokenHash] = entry
            }
            return (entry.key, markUsed)
        }
    }

    /// The generation to hand back to `store`; nil while untrusted (then
    /// nothing may be stored).
    var generation: UInt64? {
        state.withLock { $0.trusted ? $0.generation : nil }
    }

    /// Remembers a key verified against the database, unless anything was
    /// invalidated since `generation` was read.
    func store(_ key: AuthenticatedKey, for tokenHash: Digest, generation: UInt64?, now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            guard state.trusted, let generation, generation == state.generation else { return }
            if state.entries.count >= capacity {
                // Rare and cheap to rebuild: dropping everything keeps memory bounded without bookkeeping.
                state.entries.removeAll(keepingCapacity: true)
            }
            state.entries[tokenHash] = Entry(key: key, expiresAt: now + lifetime, markedUsedAt: now)
        }
    }

    func invalidate(keyID: UUID) {
        state.withLock { state in
            state.generation &+= 1
            state.entries = state.entries.filter { $0.value.key.keyID != keyID }
        }
    }

    func invalidate(userID: UUID) {
        state.withLock { state in
            state.generation &+= 1
            state.entries = state.entries.filter { $0.value.key.userID != userID }
        }
    }

    /// Revocations from every replica are heard (again): serve cached keys,
    /// starting from none, since some may have been missed meanwhile.
    func forgetAllAndTrust() {
        forgetAll(trusted: true)
    }

    /// Revocations can no longer be heard: forget every key and serve none
    /// from memory until `forgetAllAndTrust`.
    func forgetAllAndDistrust() {
        forgetAll(trusted: false)
    }

    /// An announcement that could not be read: forget every key, to be safe.
    func forgetAll() {
        forgetAll(trusted: nil)
    }

    private func forgetAll(trusted: Bool?) {
        state.withLock { state in
            state.generation &+= 1
            if let trusted { state.trusted = trusted }
            state.entries.removeAll()
        }
    }

    var count: Int {
        state.withLock { $0.entries.count }
    }
}
