import FoundationEssentials

/// Where a scheduler's walk of the due targets stands: the (claim_at, id)
/// of the last target it claimed, in the due index's order (migration
/// 0042). Claims do not move a claimed target in that index (they stay
/// HOT updates, see migration 0012), so starting after the cursor skips
/// every target this scheduler has in flight instead of re-reading them
/// on each claim.
/// Targets passed over (locked or leased by another replica at the time,
/// released, or whose lease expired) are found once the walk starts over:
/// when a claim comes back short, or when the scheduler restarts it.
package struct ClaimCursor: Sendable, Equatable {
    /// `claim_at` as PostgreSQL printed it, read back the same way, so
    /// ties at the microsecond compare exactly.
    let dueAt: String
    let id: UUID

    /// Before every target.
    package static let start = ClaimCursor(dueAt: "-infinity", id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
}

extension ClaimCursor {
    /// A UUID's bytes as two big-endian halves: PostgreSQL orders uuids by
    /// their bytes, and so do these pairs.
    static func order(_ id: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: id.uuid) { bytes in
            (
                UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
    }
}
