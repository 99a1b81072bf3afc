package import FoundationEssentials

/// Which of a webhook's deliveries a log page lists; nil matches anything.
package struct DeliveryFilter: Sendable {
    package var status: DeliveryStatus?
    package var eventType: String?
    /// Created at or after.
    package var since: Date?
    /// Created before.
    package var until: Date?

    package init(status: DeliveryStatus? = nil, eventType: String? = nil, since: Date? = nil, until: Date? = nil) {
        self.status = status
        self.eventType = eventType
        self.since = since
        self.until = until
    }
}
