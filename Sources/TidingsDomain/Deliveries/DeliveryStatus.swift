/// Where a delivery stands: waiting for an attempt (maybe a retry),
/// delivered, or given up after its last attempt (kept for replay).
package enum DeliveryStatus: String, Sendable, CaseIterable {
    case pending
    case succeeded
    case failed
}
