import Foundation
import Synchronization
import TidingsDomain
import TidingsHTTPServer
import TidingsObservability
import TidingsPostgres
import TidingsSynchronization

/// The service behind `GET /v1/events`: every open event stream of this
/// process, fed by one thread and one LISTEN session (decision 0041).
///
/// `queue_events` names each user with new events on `tidings_events` at
/// commit, from any replica. The LISTEN thread marks that user's streams
/// dirty and wakes the worker, which reads the user's events after the
/// furthest-behind stream's position from the outbox and sends each to the
/// streams that want it. A notification is only a hint: streams read from
/// their own position, so nothing committed is lost between wake-ups, and
/// a (re)started LISTEN session marks every user dirty. Users take turns:
/// each dirty user gets one batch per round, so one user's backlog (a
/// stream resuming from far back) delays another's events by one batch.
///
/// A stream holds no thread: the HTTP server parks its connection until
/// `HTTPResponseStream.send` has bytes for it.
final class EventStreamHub: Service {
    private struct State {
        var subscribers: [UUID: [ObjectIdentifier: EventStreamSubscriber]] = [:]
        var count = 0
        var dirty: Set<UUID> = []
        var stopping = false
    }

    /// How long a stream waits for a place when its user is at the limit.
    static let limitGrace: Duration = .milliseconds(500)

    let settings: EventStreamSettings
    private let events: EventStore
    private let state = AdaptiveMutex(State())
    private let worker = WorkerLoop(name: "tidings.streams")
    private let listener: PostgresNotificationLoop
    private let sent: Counter
    private let logger: Logger

    init(settings: EventStreamSettings, database: PostgresClient, logger: Logger, metrics: MetricsRegistry) {
        self.settings = settings
        self.events = EventStore(database: database)
        self.logger = logger
        sent = metrics.counter("tidings_stream_events_sent_total", help: "Events sent on event streams, by type.")
        let failing = Atomic(false)
        let state = self.state
        let worker = self.worker
        listener = PostgresNotificationLoop(
            configuration: database.configuration,
            channels: [EventStore.notificationChannel],
            threadName: "tidings.listen.streams",
            handlers: .init(
                listening: {
                    if failing.exchange(false, ordering: .acquiringAndReleasing) {
                        logger.notice("listening for stream events again")
                    }
                    // Anything sent while no session listened: read on.
                    state.withLock { $0.dirty.formUnion($0.subscribers.keys) }
                    worker.wake()
                },
                received: { notifications in
                    let woken = state.withLock { state in
                        var woken = false
                        for notification in notifications {
                            guard let user = UUID(uuidString: notification.payload), state.subscribers[user] != nil else { continue }
                            woken = state.dirty.insert(user).inserted || woken
                        }
                        return woken
                    }
                    if woken { worker.wake() }
                },
                lost: { error in
                    if !failing.exchange(true, ordering: .acquiringAndReleasing) {
                        logger.warning(
                            "cannot listen for stream events; streams wait for the session",
                            metadata: [
                                "error": error.description
                            ])
                    }
                }
            )
        )
        metrics.gauge("tidings_event_streams_open", help: "Event streams open in this process.").observe { [state] in
            Double(state.withLock(\.count))
        }
    }

    func start() {
        listener.start()
        worker.start { [self] in run() }
    }

    /// Ends every stream cleanly (clients reconnect, to another replica),
    /// then stops listening and the worker. Idempotent. A stream has
    /// nothing in flight to wait for, so the deadline is not needed.
    func stop(deadline: ContinuousClock.Instant) {
        let open = state.withLock { state -> [EventStreamSubscriber] in
            state.stopping = true
            return state.subscribers.values.flatMap(\.values)
        }
        for subscriber in open { subscriber.stream.finish() }
        listener.stop()
        worker.stop()
    }

    /// Opens a stream for the user that goes on after `position`, starting
    /// with `preamble` (the `retry:` hint, a resync notice). Events are sent
    /// from the worker thread from now on.
    ///
    /// A user at the limit often holds streams whose clients have closed
    /// their connections (an app reconnecting): a waiting connection is not
    /// polled, so such a stream would hold its place until its next
    /// heartbeat. The user's streams are checked for a client that left,
    /// and the new stream waits up to `limitGrace` for a place to free
    /// before it is refused. (A client that vanished without closing is
    /// found by the heartbeats and TCP, later.)
    func open(
        userID: UUID, after position: FeedPosition, types: Set<WebhookEventType>?, preamble: [UInt8]
    ) throws(EventStreamRefusal) -> HTTPResponseStream {
        let stream = HTTPResponseStream(bufferLimit: settings.bufferLimit)
        let subscriber = EventStreamSubscriber(userID: userID, stream: stream, types: types, position: position, now: .now)
        // Buffered before the worker can see the stream: the hint and a
        // resync notice come before any event.
        _ = stream.send(preamble)
        let deadline = ContinuousClock.now + Self.limitGrace
        var nudged = false
        while true {
            let held = try state.withLock { state throws(EventStreamRefusal) -> [EventStreamSubscriber]? in
                guard !state.stopping else { throw .stopping }
                guard state.count < settings.maxStreams else { throw .processAtLimit(maximum: settings.maxStreams) }
                let held = state.subscribers[userID] ?? [:]
                guard held.count < settings.maxStreamsPerUser else { return Array(held.values) }
                state.subscribers[userID, default: [:]][ObjectIdentifier(subscriber)] = subscriber
                state.count += 1
                state.dirty.insert(userID)
                return nil
            }
            guard let held else { break }
            guard ContinuousClock.now < deadline else { throw .userAtLimit(maximum: settings.maxStreamsPerUser) }
            if !nudged {
                for other in held { other.stream.closeIfClientLeft() }
                nudged = true
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        stream.onClose { [weak self] _ in self?.remove(subscriber) }
        worker.wake()
        return stream
    }

    private func remove(_ subscriber: EventStreamSubscriber) {
        state.withLock { state in
            guard state.subscribers[subscriber.userID]?.removeValue(forKey: ObjectIdentifier(subscriber)) != nil else { return }
            state.count -= 1
            if state.subscribers[subscriber.userID]?.isEmpty == true {
                state.subscribers[subscriber.userID] = nil
                state.dirty.remove(subscriber.userID)
            }
        }
    }

    private func run() {
        while !worker.isStopping {
            let round = state.withLock { state -> [(UUID, [EventStreamSubscriber])] in
                defer { state.dirty.removeAll(keepingCapacity: true) }
                return state.dirty.compactMap { user in state.subscribers[user].map { (user, Array($0.values)) } }
            }
            var failed = false
            for (user, subscribers) in round {
                do {
                    try deliver(to: user, subscribers)
                } catch {
                    failed = true
                    state.withLock { _ = $0.dirty.insert(user) }
                    logger.warning("could not read events for streams", metadata: ["user.id": user.canonicalString, "error": "\(error)"])
                }
            }
            sendHeartbeats(now: .now)
            let more = state.withLock { !$0.dirty.isEmpty }
            // After a failed read, wait a little rather than spin on it.
            if !more || failed { worker.wait(timeout: failed ? .milliseconds(500) : .seconds(1)) }
        }
    }

    /// One batch of the user's events after the furthest-behind stream,
    /// each frame built once and sent to every stream that wants it.
    private func deliver(to user: UUID, _ subscribers: [EventStreamSubscriber]) throws {
        guard let from = subscribers.map(\.position).min() else { return }
        let batch = try events.events(userID: user, after: from, limit: settings.readBatch)
        guard !batch.isEmpty else { return }
        let now = ContinuousClock.now
        for event in batch {
            let frame = ServerSentEvents.event(id: event.position.token, type: event.type.rawValue, data: event.body)
            var sentTo = 0
            for subscriber in subscribers where subscriber.position < event.position {
                subscriber.position = event.position
                guard subscriber.wants(event.type), subscriber.stream.send(frame) else { continue }
                subscriber.lastSentAt = now
                sentTo += 1
            }
            if sentTo > 0 { sent.increment(by: Double(sentTo), labels: ["type": event.type.rawValue]) }
        }
        if batch.count == settings.readBatch {
            state.withLock { _ = $0.dirty.insert(user) }
        }
    }

    private func sendHeartbeats(now: ContinuousClock.Instant) {
        let quiet = state.withLock { state in
            state.subscribers.values.flatMap(\.values).filter { now - $0.lastSentAt >= settings.heartbeat }
        }
        for subscriber in quiet where subscriber.stream.send(ServerSentEvents.heartbeat) {
            subscriber.lastSentAt = now
        }
    }
}
