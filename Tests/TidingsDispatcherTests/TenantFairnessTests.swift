import Foundation
import Testing
import TidingsTestSupport

/// One user's receivers that never answer, and a backlog behind them,
/// leave another user's deliveries going out at once.
@Suite struct TenantFairnessTests {
    /// Each hanging webhook holds its cap in flight and its queue of
    /// prefetched deliveries; together they hold more leases than the
    /// process may have requests in flight. Requests in flight, not leases
    /// held, limit the claims; and the backlog (2,000 due deliveries) is
    /// longer than a claim reads in due order, so only the sweep of the
    /// other webhooks finds the other user's delivery, within a second,
    /// instead of after the backlog (about 40 minutes here).
    @Test func hangingReceiversOfOneUserDoNotHoldUpAnothersDeliveries() async throws {
        // Answers just inside the timeout, so that no request the
        // dispatcher gave up on is still counted here as in progress.
        let hanging = try WebhookReceiver { _, _ in .init(delay: .milliseconds(4500)) }
        let receiver = try WebhookReceiver()
        let harness = try DispatcherHarness {
            $0.webhookMaxInFlight = 8
            $0.webhookConcurrency = 2
            $0.webhookTimeout = .seconds(5)
        }
        defer { harness.shutdown(); hanging.stop(); receiver.stop() }
        let flooder = try await harness.createUser()
        _ = try await harness.createWebhook(key: flooder.key, url: hanging.url("/a"))
        _ = try await harness.createWebhook(key: flooder.key, url: hanging.url("/b"))
        try harness.enqueueBurst(user: flooder.id, count: 1000)
        #expect(try await eventually { hanging.requests().count >= 4 })

        let other = try await harness.createUser()
        _ = try await harness.createWebhook(key: other.key, url: receiver.url("/other"))
        try harness.enqueue(user: other.id)
        let sent = ContinuousClock.now
        #expect(try await eventually { receiver.requests("/other").count == 1 })
        // Well inside the hanging requests' 5 s timeout.
        #expect(ContinuousClock.now - sent < .seconds(3))
        #expect(hanging.mostConcurrent("/a") == 2 && hanging.mostConcurrent("/b") == 2)
    }

    /// One user's webhooks may together have at most their share of the
    /// process's requests in flight (3/4 by default); the rest stay free
    /// for other users.
    @Test func oneUsersRequestsLeaveSlotsForOthers() async throws {
        // Answers just inside the timeout, so that no request the
        // dispatcher gave up on is still counted here as in progress.
        let hanging = try WebhookReceiver { _, _ in .init(delay: .milliseconds(4500)) }
        let receiver = try WebhookReceiver()
        let harness = try DispatcherHarness {
            $0.webhookMaxInFlight = 8
            $0.webhookConcurrency = 4
            $0.webhookTimeout = .seconds(5)
        }
        defer { harness.shutdown(); hanging.stop(); receiver.stop() }
        let flooder = try await harness.createUser()
        for path in ["/a", "/b", "/c"] {
            _ = try await harness.createWebhook(key: flooder.key, url: hanging.url(path))
        }
        try harness.enqueueBurst(user: flooder.id, count: 20)
        #expect(try await eventually { hanging.requests().count >= 6 })

        let other = try await harness.createUser()
        _ = try await harness.createWebhook(key: other.key, url: receiver.url("/other"))
        try harness.enqueueBurst(user: other.id, count: 2)
        let sent = ContinuousClock.now
        #expect(try await eventually { receiver.requests("/other").count == 2 })
        #expect(ContinuousClock.now - sent < .seconds(3))
        // The flooder's three webhooks could have had 12 in flight.
        #expect(hanging.mostConcurrentInAll() == 6)
    }
}
