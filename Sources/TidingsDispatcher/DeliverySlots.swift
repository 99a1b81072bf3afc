import FoundationEssentials
import TidingsDomain

/// Which of this process's leased deliveries go out now and which wait:
/// at most `cap` in flight per webhook, the rest queued per webhook in
/// claim order and started the moment one of that webhook's requests
/// finishes, without waiting for a database turn. Nothing starts after
/// `startBy`, until when the process's heartbeat keeps it alive (see
/// `LeaseLiveness`); a queue that could not start then waits for `resume`.
/// Pure logic: the clock is passed in.
struct DeliverySlots {
    private struct Queued {
        let delivery: ClaimedDelivery
        let leaseEnds: ContinuousClock.Instant
    }

    /// Requests in flight per webhook.
    let cap: Int
    /// The least lease a queued delivery must have left to be started: the
    /// attempt's timeout plus time to write it back. One with less is
    /// dropped unsent; its lease runs out and it is claimed again.
    let leaseNeeded: Duration
    private var inFlight: [UUID: Int] = [:]
    private var queues: [UUID: [Queued]] = [:]
    private var isClosed = false
    /// Some queue has a free slot it could not fill because the process was
    /// not alive at the time.
    private var isPaused = false
    /// The last instant a request may start (the heartbeat's `startBy`);
    /// nil: no limit.
    var startBy: ContinuousClock.Instant?
    private(set) var inFlightCount = 0
    private(set) var queuedCount = 0
    /// Queued deliveries dropped because their lease ran too short.
    private(set) var droppedCount = 0

    init(cap: Int, leaseNeeded: Duration) {
        precondition(cap > 0, "at least one request per webhook")
        self.cap = cap
        self.leaseNeeded = leaseNeeded
    }

    /// Leases held here: in flight or queued.
    var heldCount: Int {
        inFlightCount + queuedCount
    }

    /// Whether a request may start at `now`.
    func mayStart(at now: ContinuousClock.Instant) -> Bool {
        startBy.map { now < $0 } ?? true
    }

    /// Takes deliveries just claimed at `claimedAt` (no later than the
    /// database's start of the claim, so each lease ends no sooner than
    /// `claimedAt + delivery.leaseDuration`); returns those to send now
    /// (none if the process may not start work at `now`), in claim order.
    ///
    /// The claim leases the first ones of each webhook for sending at once
    /// and the rest for waiting (longer), but returns them in no set order;
    /// so the short leases take the free slots first. Queued behind a
    /// longer one, a short lease would be too short to start when its turn
    /// came: dropped unsent and sent only once it ran out.
    mutating func admit(_ deliveries: [ClaimedDelivery], claimedAt: ContinuousClock.Instant, now: ContinuousClock.Instant? = nil) -> [ClaimedDelivery] {
        guard !isClosed else { return [] }
        let alive = mayStart(at: now ?? claimedAt)
        if !alive && !deliveries.isEmpty { isPaused = true }
        var start: [(offset: Int, delivery: ClaimedDelivery)] = []
        let shortLeasesFirst = deliveries.enumerated().sorted {
            ($0.element.leaseDuration, $0.offset) < ($1.element.leaseDuration, $1.offset)
        }
        for (offset, delivery) in shortLeasesFirst {
            let webhook = delivery.webhookID
            if alive && inFlight[webhook, default: 0] < cap && queues[webhook, default: []].isEmpty {
                inFlight[webhook, default: 0] += 1
                inFlightCount += 1
                start.append((offset, delivery))
            } else {
                queues[webhook, default: []].append(Queued(delivery: delivery, leaseEnds: claimedAt + delivery.leaseDuration))
                queuedCount += 1
            }
        }
        return start.sorted { $0.offset < $1.offset }.map(\.delivery)
    }

    /// A request of `webhook` finished; returns the next queued delivery of
    /// that webhook to send in its place, if one still has lease enough.
    mutating func finish(webhook: UUID, now: ContinuousClock.Instant) -> ClaimedDelivery? {
        guard let running = inFlight[webhook], running > 0 else { return nil }
        inFlight[webhook] = running == 1 ? nil : running - 1
        inFlightCount -= 1
        guard !isClosed else { return nil }
        guard mayStart(at: now) else {
            if queues[webhook] != nil { isPaused = true }
            return nil
        }
        return startNext(webhook: webhook, now: now)
    }

    /// Fills the slots left free while the process was not alive, once it
    /// is again; returns the deliveries to send.
    mutating func resume(now: ContinuousClock.Instant) -> [ClaimedDelivery] {
        guard isPaused, !isClosed, mayStart(at: now) else { return [] }
        isPaused = false
        var start: [ClaimedDelivery] = []
        for webhook in Array(queues.keys) {
            while inFlight[webhook, default: 0] < cap, let next = startNext(webhook: webhook, now: now) {
                start.append(next)
            }
        }
        return start
    }

    /// Forgets every queued delivery (their leases were freed by another
    /// process); returns how many.
    mutating func dropQueued() -> Int {
        let dropped = queuedCount
        queues.removeAll()
        queuedCount = 0
        isPaused = false
        return dropped
    }

    /// Takes `webhook`'s next queued delivery with lease enough left and
    /// counts it in flight.
    private mutating func startNext(webhook: UUID, now: ContinuousClock.Instant) -> ClaimedDelivery? {
        // Taken from the queue in place, not from a copy: the queue is up
        // to eight times the cap deep, and this runs under the lock on the
        // HTTP client's thread for every finished request.
        while let next = queues[webhook]?.first {
            queues[webhook]?.removeFirst()
            if queues[webhook]?.isEmpty == true { queues[webhook] = nil }
            queuedCount -= 1
            guard next.leaseEnds - now >= leaseNeeded else {
                droppedCount += 1
                continue
            }
            inFlight[webhook, default: 0] += 1
            inFlightCount += 1
            return next.delivery
        }
        return nil
    }

    /// Leases held here per webhook, in flight or queued.
    var heldPerWebhook: [UUID: Int] {
        var held = inFlight
        for (webhook, queue) in queues { held[webhook, default: 0] += queue.count }
        return held
    }

    /// Webhooks holding `limit` leases or more here.
    func full(limit: Int) -> [UUID] {
        heldPerWebhook.compactMap { $0.value >= limit ? $0.key : nil }
    }

    /// Starts and takes nothing more (shutdown): the queued deliveries are
    /// forgotten here, their leases released with the rest of this
    /// process's.
    mutating func close() {
        isClosed = true
        queues.removeAll()
        queuedCount = 0
    }
}
