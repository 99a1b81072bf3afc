import Testing
import TidingsDomain

/// When a lease owner may start work and when others free its leases,
/// with the clock passed in.
@Suite struct LeaseLivenessTests {
    let start = ContinuousClock.now

    @Test func nothingStartsBeforeTheFirstConfirmedBeat() {
        let liveness = LeaseLiveness(inFlightGrace: .seconds(17))
        #expect(liveness.startBy == nil)
        #expect(!liveness.mayStart(at: start))
    }

    @Test func aBeatKeepsTheOwnerAliveForStaleAfterFromWhenItWasSent() {
        var liveness = LeaseLiveness(staleAfter: .seconds(3), inFlightGrace: .seconds(17))
        liveness.confirmed(sentAt: start)
        #expect(liveness.mayStart(at: start + .milliseconds(2999)))
        #expect(!liveness.mayStart(at: start + .seconds(3)))
        // A late confirmation of an earlier beat does not move it back.
        liveness.confirmed(sentAt: start + .seconds(2))
        liveness.confirmed(sentAt: start + .seconds(1))
        #expect(liveness.startBy == start + .seconds(5))
    }

    @Test func workStartedWhileAliveEndsBeforeTheOwnerCountsAsDead() {
        // A dispatcher with a 15 s timeout: grace 17 s, dead after 20 s.
        var liveness = LeaseLiveness(staleAfter: .seconds(3), inFlightGrace: .seconds(17))
        #expect(liveness.deadAfter == .seconds(20))
        liveness.confirmed(sentAt: start)
        // The database stamped the beat no earlier than it was sent.
        let lastStart = start + .milliseconds(2999)
        #expect(liveness.mayStart(at: lastStart))
        let requestEnds = lastStart + .seconds(15)
        #expect(!LeaseLiveness.isDead(heartbeatAt: start, deadAfter: liveness.deadAfter, now: requestEnds))
        #expect(!LeaseLiveness.isDead(heartbeatAt: start, deadAfter: liveness.deadAfter, now: start + .seconds(20)))
        #expect(LeaseLiveness.isDead(heartbeatAt: start, deadAfter: liveness.deadAfter, now: start + .seconds(20) + .milliseconds(1)))
    }

    @Test func aReapedOwnerStartsNothingUntilItIsConfirmedAgain() {
        var liveness = LeaseLiveness(inFlightGrace: .seconds(2))
        liveness.confirmed(sentAt: start)
        liveness.reaped()
        #expect(!liveness.mayStart(at: start))
        liveness.confirmed(sentAt: start + .seconds(30))
        #expect(liveness.mayStart(at: start + .seconds(31)))
    }

    @Test func absurdGracesAreClampedInsteadOfOverflowing() {
        let liveness = LeaseLiveness(staleAfter: .seconds(Int64.max), inFlightGrace: .seconds(Int64.max))
        #expect(liveness.deadAfter == LeaseLiveness.longestGrace * 2)
        #expect(LeaseLiveness(inFlightGrace: .seconds(-5)).deadAfter == LeaseLiveness.defaultStaleAfter)
    }
}
