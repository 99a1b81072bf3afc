import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer

/// The filters of `GET /v1/webhooks/{id}/deliveries`: `status`,
/// `event_type`, `since` and `until` (ISO 8601, on the creation time).
enum DeliveryLogQuery {
    static let eventTypes = WebhookEventType.allCases.map(\.rawValue)

    static func filter(from request: HTTPRequest) throws -> DeliveryFilter {
        var filter = DeliveryFilter()
        if let raw = request.query["status"] {
            guard let status = DeliveryStatus(rawValue: raw) else {
                throw HTTPError.field("status", "must be one of pending, succeeded, failed", status: .badRequest)
            }
            filter.status = status
        }
        if let raw = request.query["event_type"] {
            guard eventTypes.contains(raw) else {
                throw HTTPError.field("event_type", "must be one of \(eventTypes.joined(separator: ", "))", status: .badRequest)
            }
            filter.eventType = raw
        }
        filter.since = try date(request.query["since"], field: "since")
        filter.until = try date(request.query["until"], field: "until")
        return filter
    }

    private static func date(_ raw: String?, field: String) throws -> Date? {
        guard let raw else { return nil }
        if let date = RFC3339Timestamp.parse(raw) { return date }
        throw HTTPError.field(field, "must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z", status: .badRequest)
    }
}
