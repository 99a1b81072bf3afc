/// Counts of work in progress per key (requests in flight per webhook,
/// host or user; checks in flight per user), with their total. A key whose
/// count falls to zero is dropped, so a tally holds only the keys with
/// something in progress and never grows with keys that have gone quiet.
/// A value type: callers keep it under their own lock.
///
/// Public and inlinable, so the engines get it specialized for their key
/// types (decision 0060): it runs under their locks for every request
/// started and finished.
public struct Tally<Key: Hashable & Sendable>: Sendable {
    @usableFromInline var storage: [Key: Int] = [:]
    @usableFromInline var sum = 0

    @inlinable package init() {}

    /// The keys with something in progress, and how much.
    @inlinable package var counts: [Key: Int] {
        storage
    }

    /// The sum of every key's count.
    @inlinable package var total: Int {
        sum
    }

    /// The count of `key`, 0 when it has none.
    @inlinable package subscript(key: Key) -> Int {
        storage[key, default: 0]
    }

    /// Adds `count` (one unless said) to `key`'s count; adding none
    /// leaves the key out.
    @inlinable package mutating func add(_ key: Key, count: Int = 1) {
        guard count > 0 else { return }
        storage[key, default: 0] += count
        sum += count
    }

    /// Takes one from `key`'s count; a key with none is left alone (a
    /// finish without a start is not counted below zero).
    @inlinable package mutating func remove(_ key: Key) {
        guard let count = storage[key] else { return }
        storage[key] = count > 1 ? count - 1 : nil
        sum -= 1
    }

    /// The keys whose count is `limit` or more, in no set order.
    @inlinable package func keys(atLeast limit: Int) -> [Key] {
        storage.compactMap { $0.value >= limit ? $0.key : nil }
    }
}
