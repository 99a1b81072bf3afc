import Foundation
import Testing
import TidingsDomain
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// Every path that queues events goes through `queue_events` (decision
/// 0003): the poller's content (`record_changes`, in SQL), the badge
/// trigger, the poller's state events (Swift), webhook.test and
/// webhook.disabled (DeliveryStore). Each must reach the same subscribers:
/// the user's enabled webhooks of that type and the enabled global ones.
@Suite(.serialized) struct OutboxFanOutTests {
    @Test func everyPathReachesTheUsersAndTheGlobalWebhooksOfTheType() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        script["page"] = "one"
        script["status"] = "200"
        let origin = try TestOriginServer { request in
            script.record(request)
            return .text(script["page"]!, status: Int(script["status"]!)!)
        }
        let poller = try context.poller { $0.failureThreshold = 1 }
        defer { poller.stop(); origin.stop(); context.close() }
        let user = try context.user()
        let stranger = try context.user()
        let webhooks = WebhookStore(database: context.database, secrets: context.secrets)
        func create(_ owner: WebhookOwner, _ types: [WebhookEventType] = WebhookEventType.subscribable, enabled: Bool = true) throws -> UUID
        {
            let id = try webhooks.create(owner: owner, NewWebhook(url: "https://93.184.215.14/hook", eventTypes: types)).webhook.id
            if !enabled { _ = try webhooks.update(id: id, owner: owner, WebhookChanges(enabled: false)) }
            return id
        }
        let all = try create(.user(user))
        let badgeOnly = try create(.user(user), [.badgeUpdated])
        let disabled = try create(.user(user), enabled: false)
        let global = try create(.global)
        let globalDisabled = try create(.global, enabled: false)
        let strangers = try create(.user(stranger))

        let watch = try context.watch(user: user, url: "\(origin.baseURL)/")
        #expect(try await context.check(watch, with: poller).result == .baseline)
        script["page"] = "two"
        #expect(try await context.check(watch, with: poller).result == .changed)
        script["status"] = "500"
        #expect(try await context.check(watch, with: poller).state == .failing)
        script["status"] = "200"
        #expect(try await context.check(watch, with: poller).state == .ok)

        let deliveries = DeliveryStore(database: context.database)
        guard case .queued = try deliveries.sendTestEvent(webhookID: badgeOnly, owner: .user(user)) else {
            Issue.record("the test event was not queued")
            return
        }
        // A 410 disables `all`; its owner's other webhooks and the global ones hear of it.
        let delivery: UUID = try context.database.query(
            """
            SELECT id FROM deliveries WHERE webhook_id = \(all) LIMIT 1
            """
        ).single().decode("id")
        let attempt = CompletedAttempt(
            deliveryID: delivery, webhookID: all, eventID: UUID(), attemptedAt: Date(), durationMilliseconds: 1,
            statusCode: 410, error: nil, responseBody: nil, responseTruncated: false, outcome: .gone
        )
        #expect(try deliveries.complete([attempt], owner: "test", disableAfter: .seconds(3600)).map(\.id) == [all])

        let received = try Self.received(context.database)
        #expect(received[all] == ["badge.updated", "watch.changed", "watch.failing", "watch.recovered"])
        #expect(received[badgeOnly] == ["badge.updated", "webhook.test"])
        #expect(received[global] == ["badge.updated", "watch.changed", "watch.failing", "watch.recovered", "webhook.disabled"])
        #expect(received[disabled] == nil)
        #expect(received[globalDisabled] == nil)
        #expect(received[strangers] == nil)
    }

    @Test func aBatchQueuesEveryEventAndOnlyTheLatestBadgeOfAUser() async throws {
        let context = try PollerTestContext()
        defer { context.close() }
        let user = try context.user()
        let webhooks = WebhookStore(database: context.database, secrets: context.secrets)
        let hook = try webhooks.create(owner: .user(user), NewWebhook(url: "https://93.184.215.14/hook")).webhook.id
        let rows = try context.database.query(
            """
            SELECT e.id, e.n FROM queue_events(ARRAY[
                ROW(\(user)::uuid, 'badge.updated', '{"count": 1}', NULL, NULL)::outbox_event,
                ROW(\(user)::uuid, 'watch.changed', '{"n": 2}', NULL, NULL)::outbox_event,
                ROW(\(user)::uuid, 'badge.updated', '{"count": 3}', NULL, NULL)::outbox_event
            ]) WITH ORDINALITY AS e(id, n)
            """)
        let ids: [UUID] = try rows.map { try $0.decode("id") }
        #expect(try context.database.query("SELECT count(*)::integer AS n FROM events").single().decode("n", as: Int.self) == 3)
        let queued = try context.database.query(
            """
            SELECT d.event_id FROM deliveries d WHERE d.webhook_id = \(hook) ORDER BY d.event_id = \(ids[1]) DESC
            """
        ).map { try $0.decode("event_id", as: UUID.self) }
        // The watch.changed event, and one badge delivery carrying the later count.
        #expect(queued == [ids[1], ids[2]])
        #expect(try Self.received(context.database)[hook] == ["badge.updated", "watch.changed"])
    }

    /// The webhook dispatcher sleeps until the next waiting delivery (a
    /// coalesced badge, a retry) is due. Deliveries due already but held
    /// back (their webhook's requests in flight) must not hide it.
    @Test func timeUntilNextDueLooksPastDeliveriesDueAlready() async throws {
        let context = try PollerTestContext()
        defer { context.close() }
        let user = try context.user()
        let webhooks = WebhookStore(database: context.database, secrets: context.secrets)
        _ = try webhooks.create(owner: .user(user), NewWebhook(url: "https://93.184.215.14/hook")).webhook.id
        let deliveries = DeliveryStore(database: context.database)
        #expect(try deliveries.timeUntilNextDue() == nil)
        let events: [UUID] = try context.database.query(
            """
            SELECT id FROM queue_events(ARRAY[
                ROW(\(user)::uuid, 'watch.changed', '{"n": 1}', NULL, NULL)::outbox_event,
                ROW(\(user)::uuid, 'watch.changed', '{"n": 2}', NULL, NULL)::outbox_event
            ]) AS id
            """
        ).map { try $0.decode("id") }
        func due(_ event: UUID, in seconds: Int) throws {
            _ = try context.database.query(
                """
                UPDATE deliveries SET next_attempt_at = now() + \(seconds) * interval '1 second' WHERE event_id = \(event)
                """)
        }
        try due(events[0], in: -1)
        try due(events[1], in: 30)
        let wait = try #require(try deliveries.timeUntilNextDue())
        #expect(wait > .seconds(20) && wait <= .seconds(30), "\(wait)")
        try due(events[1], in: -1)
        #expect(try deliveries.timeUntilNextDue() == nil, "nothing waits: both are the claim's")
    }

    /// The eventful write is the one judge of change: it decides from the
    /// rows it locks, diffs against the snapshot it read under that lock,
    /// and a check claimed before another write stored the same content is
    /// no change.
    @Test func eventfulWriteJudgesBaselineUnchangedAndChangedOnce() throws {
        let context = try PollerTestContext()
        defer { context.close() }
        let user = try context.user()
        let first = try context.watch(user: user, url: "https://93.184.215.14/first")
        let paused = try context.watch(user: user, url: "https://93.184.215.14/paused")
        let store = CheckStore(database: context.database, failureThreshold: 3)
        func checks(_ watches: [Watch], hash: Character, snapshot: String) throws -> [TargetCheck] {
            try watches.map { watch in
                let claimed = try #require(try store.claim(targetID: watch.targetID, owner: "judge", lease: .seconds(60)))
                let content = WatchCheckRecord.ContentRecord(
                    hash: String(repeating: hash, count: 64), snapshot: snapshot, snapshotTruncated: false, httpStatus: 200,
                    contentLength: snapshot.utf8.count)
                return TargetCheck(
                    target: TargetCheckRecord(targetID: claimed.id, checkedAt: Date(), nextCheckAt: Date().addingTimeInterval(300)),
                    watches: claimed.watches.map { WatchCheckRecord(watch: $0, kind: .content(content)) })
            }
        }
        var diffed: [String] = []
        func write(_ checks: [TargetCheck]) throws -> [UUID: WatchCheckResult] {
            let results = try store.writeEventful(owner: "judge", checks: checks) { previous, current in
                diffed.append("\(previous)->\(current)")
                return "-\(previous)\n+\(current)"
            }
            return Dictionary(uniqueKeysWithValues: results.map { ($0.watchID, $0) })
        }

        let baselines = try write(try checks([first, paused], hash: "a", snapshot: "one"))
        #expect(baselines.mapValues(\.result) == [first.id: .baseline, paused.id: .baseline])
        try context.database.withConnection { try $0.execute("UPDATE watches SET paused = true WHERE id = \(paused.id)") }
        #expect(try write(try checks([first], hash: "a", snapshot: "one"))[first.id]?.result == .unchanged)

        let changes = try checks([first, paused], hash: "b", snapshot: "two")
        let changed = try write(changes)
        #expect(changed[first.id]?.result == .changed)
        #expect(changed[first.id]?.changeID != nil)
        // A paused watch's hash is kept current but records no change.
        #expect(changed[paused.id]?.result == .changed)
        #expect(changed[paused.id]?.changeID == nil)
        #expect(diffed == ["one->two"], "one diff, from the snapshot the write locked")
        #expect(try context.change(of: try context.reload(first))?.diff == "-one\n+two")

        // The same checks again, claimed when the stored hash was "a": the
        // locked row already holds "b", so nothing changed.
        let again = try write(changes)
        #expect(again[first.id]?.result == .unchanged)
        #expect(again[first.id]?.changeID == nil)
        #expect(try context.changeCount(of: first) == 1)
        #expect(try context.events(of: user, type: "watch.changed").count == 1)
    }

    /// Event types delivered to each webhook, sorted.
    private static func received(_ database: PostgresClient) throws -> [UUID: [String]] {
        var received: [UUID: [String]] = [:]
        for row in try database.query(
            """
            SELECT d.webhook_id, e.type FROM deliveries d JOIN events e ON e.id = d.event_id ORDER BY e.type
            """)
        {
            received[try row.decode("webhook_id"), default: []].append(try row.decode("type"))
        }
        return received
    }
}
