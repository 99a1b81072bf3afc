import FoundationEssentials

/// Which of a webhook's deliveries a log page lists; nil matches anything.
public struct DeliveryFilter: Sendable {
    public var status: DeliveryStatus?
    public var eventType: String?
    /// Created at or after.
    public var since: Date?
    /// Created before.
    public var until: Date?

    public init(status: DeliveryStatus? = nil, eventType: String? = nil, since: Date? = nil, until: Date? = nil) {
        self.status = status
        self.eventType = eventType
        self.since = since
        self.until = until
    }
}
