import Foundation
import Testing
import TidingsDomain
import TidingsSynchronization

@testable import TidingsDispatcher

/// The per-webhook cap and queue of a dispatcher, with a clock passed in.
@Suite struct DeliverySlotsTests {
    let start = ContinuousClock.now
    let first = UUID()
    let second = UUID()

    func delivery(_ webhook: UUID, user: UUID? = nil, lease: Duration = .seconds(20), url: String = "http://127.0.0.1/") -> ClaimedDelivery
    {
        ClaimedDelivery(
            id: UUID(), webhookID: webhook, userID: user, eventID: UUID(), eventType: "watch.changed", eventData: "{}",
            eventTimestamp: "2026-11-30T12:00:00.000Z", url: url, secrets: [], attemptCount: 0,
            leaseDuration: lease
        )
    }

    @Test func atMostTheCapGoesOutPerWebhookAndTheRestWaitsInClaimOrder() {
        var slots = DeliverySlots(cap: 2, leaseNeeded: .seconds(20))
        let batch = (0..<5).map { _ in delivery(first, lease: .seconds(35)) } + [delivery(second)]
        let sent = slots.admit(batch, claimedAt: start)
        #expect(sent.map(\.id) == [batch[0].id, batch[1].id, batch[5].id])
        #expect(slots.inFlightCount == 3 && slots.queuedCount == 3 && slots.heldCount == 6)
        #expect(slots.heldPerWebhook.keys(atLeast: 5) == [first])

        // A finished request of the first webhook is replaced at once, in order.
        #expect(slots.finish(webhook: first, now: start + .seconds(1))?.id == batch[2].id)
        #expect(slots.finish(webhook: first, now: start + .seconds(1))?.id == batch[3].id)
        // The second webhook has nothing queued; its slot stays free.
        #expect(slots.finish(webhook: second, now: start + .seconds(1)) == nil)
        #expect(slots.inFlightCount == 2 && slots.queuedCount == 1)
    }

    /// One user's webhooks together have at most `userCap` requests in
    /// flight; what waits for the user's room starts at the next turn once
    /// there is some, and other users and global webhooks are not held up.
    @Test func oneUsersWebhooksShareTheUserCap() {
        var slots = DeliverySlots(cap: 2, userCap: 3, leaseNeeded: .seconds(20))
        let flooder = UUID()
        let other = UUID()
        let webhooks = (0..<3).map { _ in UUID() }
        let flood = webhooks.flatMap { webhook in (0..<2).map { _ in delivery(webhook, user: flooder, lease: .seconds(40)) } }
        let others = [delivery(first, user: other), delivery(second)]
        let sent = slots.admit(flood + others, claimedAt: start)
        #expect(sent.count { $0.userID == flooder } == 3)
        #expect(sent.contains { $0.id == others[0].id } && sent.contains { $0.id == others[1].id })
        #expect(slots.usersAtCap == [flooder])
        #expect(slots.startWaiting(now: start).isEmpty)

        // The other user's finish frees no room of the flooder's.
        #expect(slots.finish(webhook: first, now: start + .seconds(1)) == nil)
        #expect(slots.startWaiting(now: start + .seconds(1)).isEmpty)
        // A flooder's webhook with a queue of its own takes its place at once;
        // one without waits for the next turn, and then has room.
        let finished = sent.first { $0.userID == flooder }!
        let next = slots.finish(webhook: finished.webhookID, now: start + .seconds(1))
        let afterTurn = next == nil ? slots.startWaiting(now: start + .seconds(1)) : [next!]
        #expect(afterTurn.count == 1 && afterTurn[0].userID == flooder)
        #expect(slots.inFlightCount == 4 && slots.usersAtCap == [flooder])
    }

    /// Past `maxInFlight` nothing starts; each turn fills what finished.
    @Test func theProcessCapHoldsAcrossWebhooks() {
        var slots = DeliverySlots(cap: 4, maxInFlight: 3, leaseNeeded: .seconds(20))
        let webhooks = (0..<4).map { _ in UUID() }
        let batch = webhooks.enumerated().map { delivery($1, user: UUID(), lease: .seconds(40), url: "http://receiver\($0).example/") }
        let sent = slots.admit(batch, claimedAt: start)
        #expect(sent.map(\.id) == batch.prefix(3).map(\.id))
        #expect(slots.queuedCount == 1)
        // Nothing of its webhook or host is in flight: the finish of another starts it only at the turn.
        #expect(slots.finish(webhook: webhooks[0], now: start + .seconds(1)) == nil)
        #expect(slots.startWaiting(now: start + .seconds(1)).map(\.id) == [batch[3].id])
        #expect(slots.startWaiting(now: start + .seconds(1)).isEmpty)
        #expect(slots.inFlightCount == 3 && slots.queuedCount == 0)
    }

    /// Many webhooks (of many users) on one receiver site, under any of its
    /// names, share its cap;
    /// a slot the host frees goes to whichever webhook waits for it, and
    /// another host is not held up.
    @Test func webhooksOnOneHostShareTheHostCap() {
        var slots = DeliverySlots(cap: 4, hostCap: 3, leaseNeeded: .seconds(20))
        let webhooks = (0..<4).map { _ in UUID() }
        let spellings = [
            "http://receiver.example/a", "http://RECEIVER.example./b", "http://in.receiver.example:80/c", "http://x.y.receiver.example/d",
        ]
        let batch = webhooks.enumerated().flatMap { index, webhook in
            (0..<2).map { _ in delivery(webhook, lease: .seconds(40), url: spellings[index]) }
        }
        let elsewhere = delivery(second, url: "http://other.example/")
        let sent = slots.admit(batch + [elsewhere], claimedAt: start)
        #expect(sent.filter { $0.webhookID != second }.count == 3)
        #expect(sent.contains { $0.id == elsewhere.id })
        #expect(slots.inFlightCount == 4 && slots.queuedCount == 5)

        // Each finish on the host starts exactly one waiting delivery there.
        var inFlight = sent.filter { $0.webhookID != second }
        var started = 0
        while let finished = inFlight.first {
            inFlight.removeFirst()
            if let next = slots.finish(webhook: finished.webhookID, now: start + .seconds(1)) {
                #expect(next.webhookID != second)
                inFlight.append(next)
                started += 1
            }
            #expect(slots.inFlightCount - 1 <= 3, "the host never has more than its cap")
        }
        #expect(started == 5)
        #expect(slots.queuedCount == 0)
        #expect(slots.finish(webhook: second, now: start + .seconds(1)) == nil)
        #expect(slots.inFlightCount == 0)
    }

    /// The host cap is the deployment's: with two live dispatchers each
    /// starts half; when the other leaves, the queued ones start at once.
    @Test func theHostCapIsSharedAmongLiveDispatchers() {
        var slots = DeliverySlots(cap: 4, hostCap: 4, leaseNeeded: .seconds(20))
        #expect(slots.shareHostCap(among: LiveOwners(count: 2), now: start).isEmpty)
        #expect(slots.hostCap == 2)
        let batch = (0..<4).map { _ in delivery(first, lease: .seconds(40), url: "http://receiver.example/") }
        #expect(slots.admit(batch, claimedAt: start).count == 2)
        #expect(slots.queuedCount == 2)

        let started = slots.shareHostCap(among: LiveOwners(count: 1), now: start + .seconds(1))
        #expect(started.map(\.id) == [batch[2].id, batch[3].id])
        #expect(slots.inFlightCount == 4 && slots.queuedCount == 0)

        // A smaller share starts nothing more until the host is below it.
        #expect(slots.shareHostCap(among: LiveOwners(count: 4), now: start + .seconds(1)).isEmpty)
        #expect(slots.hostCap == 1)
        #expect(
            slots.admit([delivery(first, lease: .seconds(40), url: "http://receiver.example/")], claimedAt: start + .seconds(1)).isEmpty)
    }

    @Test func aNewClaimQueuesBehindWhatAlreadyWaits() {
        var slots = DeliverySlots(cap: 1, leaseNeeded: .seconds(20))
        let early = [delivery(first, lease: .seconds(40)), delivery(first, lease: .seconds(40))]
        #expect(slots.admit(early, claimedAt: start).map(\.id) == [early[0].id])
        #expect(slots.finish(webhook: first, now: start)?.id == early[1].id)
        let later = delivery(first, lease: .seconds(40))
        // The slot is taken: the newcomer waits even though nothing else is queued.
        #expect(slots.admit([later], claimedAt: start).isEmpty)
        #expect(slots.finish(webhook: first, now: start)?.id == later.id)
    }

    @Test func shortLeasesTakeTheFreeSlotsWhateverOrderTheClaimReturnedThemIn() {
        var slots = DeliverySlots(cap: 1, leaseNeeded: .seconds(20))
        let queuedLease = delivery(first, lease: .seconds(60))
        let sendNowLease = delivery(first, lease: .seconds(20))
        #expect(slots.admit([queuedLease, sendNowLease], claimedAt: start).map(\.id) == [sendNowLease.id])
        // The long lease waits, and still has enough left when its turn comes.
        #expect(slots.finish(webhook: first, now: start + .seconds(5))?.id == queuedLease.id)
        #expect(slots.droppedCount == 0)
    }

    @Test func aQueuedDeliveryWhoseLeaseRanTooShortIsDroppedUnsent() {
        var slots = DeliverySlots(cap: 1, leaseNeeded: .seconds(20))
        let batch = [delivery(first), delivery(first, lease: .seconds(35)), delivery(first, lease: .seconds(60))]
        #expect(slots.admit(batch, claimedAt: start).count == 1)
        // 16 s later the second has 19 s of lease left, less than an attempt
        // and its write need: dropped (its lease runs out, it is claimed
        // again); the third, with 44 s left, goes.
        #expect(slots.finish(webhook: first, now: start + .seconds(16))?.id == batch[2].id)
        #expect(slots.droppedCount == 1)
        #expect(slots.heldCount == 1)
    }

    @Test func afterCloseNothingQueuedStarts() {
        var slots = DeliverySlots(cap: 1, leaseNeeded: .seconds(20))
        let batch = [delivery(first, lease: .seconds(35)), delivery(first, lease: .seconds(35))]
        #expect(slots.admit(batch, claimedAt: start).count == 1)
        slots.close()
        #expect(slots.finish(webhook: first, now: start) == nil)
        #expect(slots.admit([delivery(second)], claimedAt: start).isEmpty)
        #expect(slots.heldCount == 0)
    }

    @Test func aFinishWithoutARequestInFlightChangesNothing() {
        var slots = DeliverySlots(cap: 2, leaseNeeded: .seconds(20))
        #expect(slots.finish(webhook: first, now: start) == nil)
        #expect(slots.inFlightCount == 0)
    }
}

/// Nothing starts once the heartbeat is stale; the slots fill again when it is back.
@Suite struct DeliverySlotsLivenessTests {
    let start = ContinuousClock.now
    let webhook = UUID()

    func delivery(lease: Duration = .seconds(60)) -> ClaimedDelivery {
        ClaimedDelivery(
            id: UUID(), webhookID: webhook, userID: nil, eventID: UUID(), eventType: "watch.changed", eventData: "{}",
            eventTimestamp: "2026-11-30T12:00:00.000Z", url: "http://127.0.0.1/", secrets: [], attemptCount: 0,
            leaseDuration: lease
        )
    }

    @Test func aStaleHeartbeatHoldsTheQueueAndAFreshOneResumesIt() {
        var slots = DeliverySlots(cap: 2, leaseNeeded: .seconds(20))
        slots.startBy = start + .seconds(3)
        let batch = (0..<4).map { _ in delivery() }
        #expect(slots.admit(batch, claimedAt: start, now: start).map(\.id) == [batch[0].id, batch[1].id])
        // Past startBy a finished request is not replaced.
        #expect(slots.finish(webhook: webhook, now: start + .seconds(3)) == nil)
        #expect(slots.resume(now: start + .seconds(4)).isEmpty)
        #expect(slots.inFlightCount == 1 && slots.queuedCount == 2)
        // A beat confirmed: the free slot is filled, the cap still holds.
        slots.startBy = start + .seconds(7)
        #expect(slots.resume(now: start + .seconds(5)).map(\.id) == [batch[2].id])
        #expect(slots.inFlightCount == 2 && slots.queuedCount == 1)
        #expect(slots.resume(now: start + .seconds(5)).isEmpty)
    }

    @Test func aClaimAdmittedWhileStaleIsQueuedUntilResumed() {
        var slots = DeliverySlots(cap: 4, leaseNeeded: .seconds(20))
        slots.startBy = start
        let batch = (0..<2).map { _ in delivery() }
        #expect(slots.admit(batch, claimedAt: start, now: start + .milliseconds(1)).isEmpty)
        #expect(slots.queuedCount == 2)
        slots.startBy = start + .seconds(4)
        #expect(slots.resume(now: start + .seconds(1)).map(\.id) == batch.map(\.id))
    }

    @Test func aReapedProcessForgetsItsQueue() {
        var slots = DeliverySlots(cap: 1, leaseNeeded: .seconds(20))
        let batch = (0..<3).map { _ in delivery() }
        #expect(slots.admit(batch, claimedAt: start).count == 1)
        #expect(slots.dropQueued() == 2)
        #expect(slots.finish(webhook: webhook, now: start + .seconds(1)) == nil)
        #expect(slots.heldCount == 0)
    }
}
