import Foundation
import Testing
import TidingsApp
import TidingsTestSupport

/// One user's receivers that never answer, and a backlog behind them,
/// leave another user's deliveries going out at once.
@Suite struct TenantFairnessTests {
    /// A process with 8 requests in flight; a flooder whose webhooks (one
    /// per path) answer only just inside the 5 s timeout, so that no
    /// request the dispatcher gave up on is still counted there as in
    /// progress; and another user with a webhook that answers at once.
    struct Flood {
        let hanging: WebhookReceiver
        let receiver: WebhookReceiver
        let harness: DispatcherHarness
        let other: (id: UUID, key: String)

        init(webhookConcurrency: Int, paths: [String], events: Int) async throws {
            hanging = try WebhookReceiver { _, _ in .init(delay: .milliseconds(4500)) }
            receiver = try WebhookReceiver()
            harness = try DispatcherHarness {
                $0.webhookMaxInFlight = 8
                $0.webhookConcurrency = webhookConcurrency
                $0.webhookTimeout = .seconds(5)
            }
            let flooder = try await harness.createUser()
            for path in paths {
                _ = try await harness.createWebhook(key: flooder.key, url: hanging.url(path))
            }
            try harness.enqueueBurst(user: flooder.id, count: events)
            other = try await harness.createUser()
            _ = try await harness.createWebhook(key: other.key, url: receiver.url("/other"))
        }

        /// Sends the other user `count` events once the flooder has `busy`
        /// requests in progress; returns how many requests the flooder's
        /// receivers had got when the last of them arrived. Held up behind
        /// the flooder, they would arrive only after its backlog; a count,
        /// not a time, so that a slow machine cannot fail it.
        func flooderRequestsBeforeOthersArrive(_ count: Int, once busy: Int) async throws -> Int {
            #expect(try await eventually { hanging.requests().count >= busy })
            try harness.enqueueBurst(user: other.id, count: count)
            #expect(try await eventually { receiver.requests("/other").count == count })
            return hanging.requests().count
        }

        func stop() {
            harness.stop()
            hanging.stop()
            receiver.stop()
        }
    }

    /// Each hanging webhook holds its cap in flight and its queue of
    /// prefetched deliveries; together they hold more leases than the
    /// process may have requests in flight. Requests in flight, not leases
    /// held, limit the claims; and the backlog (2,000 due deliveries) is
    /// longer than a claim reads in due order, so only the sweep of the
    /// other webhooks finds the other user's delivery, within a second,
    /// instead of after the backlog (about 40 minutes here).
    @Test func hangingReceiversOfOneUserDoNotHoldUpAnothersDeliveries() async throws {
        let flood = try await Flood(webhookConcurrency: 2, paths: ["/a", "/b"], events: 1000)
        defer { flood.stop() }
        // Before: none of the other's deliveries in 60 s, behind 2,000.
        #expect(try await flood.flooderRequestsBeforeOthersArrive(1, once: 4) < 20)
        #expect(flood.hanging.mostConcurrent("/a") == 2 && flood.hanging.mostConcurrent("/b") == 2)
    }

    /// One user's webhooks may together have at most their share of the
    /// process's requests in flight (3/4 by default); the rest stay free
    /// for other users.
    @Test func oneUsersRequestsLeaveSlotsForOthers() async throws {
        let flood = try await Flood(webhookConcurrency: 4, paths: ["/a", "/b", "/c"], events: 20)
        defer { flood.stop() }
        // Before: after about 15 s, behind the flooder's 60 deliveries.
        #expect(try await flood.flooderRequestsBeforeOthersArrive(2, once: 6) < 20)
        // The flooder's three webhooks could have had 12 in flight.
        #expect(flood.hanging.mostConcurrentInAll() == 6)
    }
}
