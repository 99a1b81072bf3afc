import FoundationEssentials
import TidingsDomain
import TidingsHTTPClient
import TidingsSynchronization

/// Which of this process's leased deliveries go out now and which wait:
/// at most `cap` in flight per webhook, `hostCap` per receiver host
/// across all webhooks (many webhooks of many users pointed at one host
/// must not multiply what it receives), `userCap` per user across their
/// webhooks (one user's receivers that never answer must not take every
/// request this process may have in flight) and `maxInFlight` in all. The
/// rest wait per webhook in claim order, started the moment a request of
/// that webhook, or of another webhook on its host, finishes, without
/// waiting for a database turn; what waits only for its user's or the
/// process's room starts at the dispatcher's next turn (`startWaiting`).
/// Nothing starts after
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
    /// Requests in flight per receiver site and port (every name under one
    /// registrable domain is one site): this process's share of
    /// `deploymentHostCap`.
    private(set) var hostCap: Int
    /// The configured cap, for all live dispatchers together.
    let deploymentHostCap: Int
    /// Requests in flight per user, across their webhooks (global
    /// webhooks, which no user owns, are not capped this way).
    let userCap: Int
    /// Requests in flight in all.
    let maxInFlight: Int
    /// The least lease a queued delivery must have left to be started: the
    /// attempt's timeout plus time to write it back. One with less is
    /// dropped unsent; its lease runs out and it is claimed again.
    let leaseNeeded: Duration
    /// Requests in flight per webhook, and in all.
    private var inFlight = Tally<UUID>()
    private var queues: [UUID: [Queued]] = [:]
    /// The receiver host of each webhook with something here.
    private var hosts: [UUID: String] = [:]
    private var hostInFlight = Tally<String>()
    /// The owner of each user's webhook with something here.
    private var owners: [UUID: UUID] = [:]
    private var userInFlight = Tally<UUID>()
    private var isClosed = false
    /// Some queue has a free slot it could not fill because the process was
    /// not alive at the time.
    private var isPaused = false
    /// The last instant a request may start (the heartbeat's `startBy`);
    /// nil: no limit.
    var startBy: ContinuousClock.Instant?
    private(set) var queuedCount = 0
    /// Queued deliveries dropped because their lease ran too short.
    private(set) var droppedCount = 0

    init(cap: Int, hostCap: Int = .max, userCap: Int = .max, maxInFlight: Int = .max, leaseNeeded: Duration) {
        precondition(cap > 0 && hostCap > 0 && userCap > 0 && maxInFlight > 0, "at least one request per webhook, host, user and process")
        self.cap = cap
        self.hostCap = hostCap
        self.deploymentHostCap = hostCap
        self.userCap = userCap
        self.maxInFlight = maxInFlight
        self.leaseNeeded = leaseNeeded
    }

    /// The politeness unit of a webhook URL, its site and port
    /// (`HTTPOrigin.siteAndPort`); the URL itself when it has no parsable
    /// host (the request will fail on its own).
    static func host(of url: String) -> String {
        HTTPOrigin(url: url)?.siteAndPort ?? url
    }

    /// Requests in flight here.
    var inFlightCount: Int {
        inFlight.total
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
    mutating func admit(_ deliveries: [ClaimedDelivery], claimedAt: ContinuousClock.Instant, now: ContinuousClock.Instant? = nil)
        -> [ClaimedDelivery]
    {
        guard !isClosed else { return [] }
        let alive = mayStart(at: now ?? claimedAt)
        if !alive && !deliveries.isEmpty { isPaused = true }
        var start: [(offset: Int, delivery: ClaimedDelivery)] = []
        let shortLeasesFirst = deliveries.enumerated().sorted {
            ($0.element.leaseDuration, $0.offset) < ($1.element.leaseDuration, $1.offset)
        }
        for (offset, delivery) in shortLeasesFirst {
            let webhook = delivery.webhookID
            let host = hosts[webhook] ?? Self.host(of: delivery.url)
            hosts[webhook] = host
            owners[webhook] = delivery.userID
            if alive && hasRoom(webhook, host: host) && queues[webhook, default: []].isEmpty {
                countStart(webhook, host: host)
                start.append((offset, delivery))
            } else {
                queues[webhook, default: []].append(Queued(delivery: delivery, leaseEnds: claimedAt + delivery.leaseDuration))
                queuedCount += 1
            }
        }
        return start.sorted { $0.offset < $1.offset }.map(\.delivery)
    }

    /// A request of `webhook` finished; returns the next queued delivery to
    /// send in its place, if one still has lease enough: the same
    /// webhook's, else another's waiting for a slot of the same host.
    mutating func finish(webhook: UUID, now: ContinuousClock.Instant) -> ClaimedDelivery? {
        guard inFlight[webhook] > 0, let host = hosts[webhook] else { return nil }
        inFlight.remove(webhook)
        hostInFlight.remove(host)
        if let user = owners[webhook] { userInFlight.remove(user) }
        defer { forgetIfIdle(webhook) }
        guard !isClosed else { return nil }
        guard mayStart(at: now) else {
            if !queues.isEmpty { isPaused = true }
            return nil
        }
        if let next = startNext(webhook: webhook, now: now) { return next }
        // The host slot may serve another webhook that waited for it.
        for (other, otherHost) in hosts where otherHost == host && other != webhook && queues[other] != nil {
            if let next = startNext(webhook: other, now: now) { return next }
        }
        return nil
    }

    /// Fills the slots left free while the process was not alive, once it
    /// is again; returns the deliveries to send.
    mutating func resume(now: ContinuousClock.Instant) -> [ClaimedDelivery] {
        guard isPaused, !isClosed, mayStart(at: now) else { return [] }
        isPaused = false
        return startQueued(now: now)
    }

    /// Takes this process's share of the per-host cap among `owners` live
    /// dispatchers (decision 0029); returns what a larger share lets start
    /// now. Above a smaller share, requests in flight finish and nothing
    /// more starts on that host until it is below.
    mutating func shareHostCap(among owners: LiveOwners, now: ContinuousClock.Instant) -> [ClaimedDelivery] {
        let previous = hostCap
        hostCap = owners.share(of: deploymentHostCap)
        guard hostCap > previous, !isClosed, mayStart(at: now) else { return [] }
        return startQueued(now: now)
    }

    /// Starts what waits and has room now: deliveries that waited for
    /// their user's or the process's room, which a finished request of
    /// another webhook does not start. Returns the deliveries to send.
    mutating func startWaiting(now: ContinuousClock.Instant) -> [ClaimedDelivery] {
        guard !isClosed, !queues.isEmpty, inFlight.total < maxInFlight, mayStart(at: now) else { return [] }
        return startQueued(now: now)
    }

    private mutating func startQueued(now: ContinuousClock.Instant) -> [ClaimedDelivery] {
        var start: [ClaimedDelivery] = []
        for webhook in Array(queues.keys) {
            while let next = startNext(webhook: webhook, now: now) {
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
        forgetIdleWebhooks()
        return dropped
    }

    private func hasRoom(_ webhook: UUID, host: String) -> Bool {
        inFlight.total < maxInFlight
            && inFlight[webhook] < cap
            && hostInFlight[host] < hostCap
            && owners[webhook].map { userInFlight[$0] < userCap } ?? true
    }

    private mutating func countStart(_ webhook: UUID, host: String) {
        inFlight.add(webhook)
        hostInFlight.add(host)
        if let user = owners[webhook] { userInFlight.add(user) }
    }

    private mutating func forgetIfIdle(_ webhook: UUID) {
        if inFlight[webhook] == 0 && queues[webhook] == nil {
            hosts[webhook] = nil
            owners[webhook] = nil
        }
    }

    /// After the queues were emptied: forgets the webhooks with nothing in flight.
    private mutating func forgetIdleWebhooks() {
        hosts = hosts.filter { inFlight[$0.key] > 0 }
        owners = owners.filter { inFlight[$0.key] > 0 }
    }

    /// Takes `webhook`'s next queued delivery with lease enough left and
    /// counts it in flight, if the webhook and its host have room.
    private mutating func startNext(webhook: UUID, now: ContinuousClock.Instant) -> ClaimedDelivery? {
        guard let host = hosts[webhook] else { return nil }
        // Taken from the queue in place, not from a copy: the queue is up
        // to eight times the cap deep, and this runs under the lock on the
        // HTTP client's thread for every finished request.
        while hasRoom(webhook, host: host), let next = queues[webhook]?.first {
            queues[webhook]?.removeFirst()
            if queues[webhook]?.isEmpty == true { queues[webhook] = nil }
            queuedCount -= 1
            guard next.leaseEnds - now >= leaseNeeded else {
                droppedCount += 1
                continue
            }
            countStart(webhook, host: host)
            return next.delivery
        }
        forgetIfIdle(webhook)
        return nil
    }

    /// Leases held here per webhook, in flight or queued.
    var heldPerWebhook: Tally<UUID> {
        var held = inFlight
        for (webhook, queue) in queues { held.add(webhook, count: queue.count) }
        return held
    }

    /// Users with `userCap` requests in flight here: a claim leaves their
    /// deliveries for later.
    var usersAtCap: [UUID] {
        userInFlight.keys(atLeast: userCap)
    }

    /// Starts and takes nothing more (shutdown): the queued deliveries are
    /// forgotten here, their leases released with the rest of this
    /// process's.
    mutating func close() {
        isClosed = true
        queues.removeAll()
        queuedCount = 0
        forgetIdleWebhooks()
    }
}
