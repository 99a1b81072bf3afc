import FoundationEssentials
import TidingsSynchronization

/// What a claim needs to know of `DeliverySlots`, read under one lock.
struct ClaimSnapshot {
    let alive: Bool
    let inFlight: Int
    let held: Int
    let dropped: Int
    let heldPerWebhook: Tally<UUID>
    /// Leases one webhook may hold here beyond its cap: none once the
    /// queues are at `maxQueued`.
    let prefetch: Int
    let fullWebhooks: [UUID]
    let usersAtCap: [UUID]

    init(_ slots: DeliverySlots, configuration: DispatcherConfiguration) {
        alive = slots.mayStart(at: .now)
        inFlight = slots.inFlightCount
        held = slots.heldCount
        dropped = slots.droppedCount
        heldPerWebhook = slots.heldPerWebhook
        prefetch = slots.queuedCount < configuration.maxQueued ? configuration.prefetch : 0
        fullWebhooks = heldPerWebhook.keys(atLeast: configuration.perWebhookConcurrency + prefetch)
        usersAtCap = slots.usersAtCap
    }
}
