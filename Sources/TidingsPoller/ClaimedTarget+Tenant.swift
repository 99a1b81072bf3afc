import FoundationEssentials
import TidingsDomain

extension ClaimedTarget {
    /// The user whose turn the target's extractions wait for in the shared
    /// extraction pool (`ThreadPool`'s fairness key): one of its watchers,
    /// so a tenant's own targets queue behind each other, not in front of
    /// everyone else's.
    var tenant: UUID? {
        watches.first?.userID
    }
}
