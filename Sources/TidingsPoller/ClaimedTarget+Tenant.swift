import FoundationEssentials
import TidingsDomain

extension ClaimedTarget {
    /// The user whose turn the target's shared work waits for (the body
    /// hash and version read in the extraction pool, its request in the
    /// site's queue, its result in the writers' queue): one of its
    /// watchers, so a tenant's own targets queue behind each other, not in
    /// front of everyone else's. Each rule's extraction is charged to its
    /// own owner instead (`ExtractionLanes`).
    var tenant: UUID? {
        watches.first?.userID
    }
}
