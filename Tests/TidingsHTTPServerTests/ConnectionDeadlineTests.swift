import Testing

@testable import TidingsHTTPServer

/// The deadline's rules with plain instants: no sockets, no sleeping.
@Suite struct ConnectionDeadlineTests {
    @Test func aNewConnectionHasTheRequestTimeoutFromItsOpening() {
        let opened = ContinuousClock.now
        var deadline = ConnectionDeadline(
            openedAt: opened, requestTimeout: .seconds(30), idleTimeout: .seconds(10), responseTimeout: .seconds(20))
        // A late request line does not extend the first request's deadline.
        deadline.requestLineArrived(at: opened + .seconds(20))
        #expect(deadline.phase == .receiving(until: opened + .seconds(30)))
        let cutBeforeTheDeadline = deadline.cutIfOverdue(at: opened + .seconds(29), newRequestID: { "new" })
        #expect(cutBeforeTheDeadline == nil)
        let cutAtTheDeadline = deadline.cutIfOverdue(at: opened + .seconds(30), newRequestID: { "new" })
        #expect(cutAtTheDeadline == .request)
        #expect(deadline.requestID == "new")
        let cutAgain = deadline.cutIfOverdue(at: opened + .seconds(31), newRequestID: { "again" })
        #expect(cutAgain == nil, "a connection is cut once")
        let answered = deadline.requestReceived()
        #expect(!answered, "a cut request is not answered")
    }

    @Test func aSilentConnectionIsCutWithoutARequestToAnswer() {
        let opened = ContinuousClock.now
        var deadline = ConnectionDeadline(
            openedAt: opened, requestTimeout: .seconds(30), idleTimeout: .seconds(10), responseTimeout: .seconds(20))
        let cutSilent = deadline.cutIfOverdue(at: opened + .seconds(30), newRequestID: { "new" })
        #expect(cutSilent == .request)
        #expect(!deadline.requestUnderway)
        #expect(deadline.requestID == nil)
    }

    @Test func aResponseHasTheResponseTimeoutFromBeingQueued() {
        let opened = ContinuousClock.now
        var deadline = ConnectionDeadline(
            openedAt: opened, requestTimeout: .seconds(30), idleTimeout: .seconds(10), responseTimeout: .seconds(20))
        deadline.requestLineArrived(at: opened)
        deadline.headReceived(requestID: "first")
        let mayAnswer = deadline.requestReceived()
        #expect(mayAnswer)
        // A slow handler is not cut.
        let cutWhileAnswering = deadline.cutIfOverdue(at: opened + .seconds(600), newRequestID: { "new" })
        #expect(cutWhileAnswering == nil)

        let queued = opened + .seconds(600)
        deadline.responseQueued(at: queued)
        #expect(deadline.phase == .sending(until: queued + .seconds(20)))
        let cutBeforeTheDeadline = deadline.cutIfOverdue(at: queued + .seconds(19), newRequestID: { "new" })
        #expect(cutBeforeTheDeadline == nil)
        let cutAtTheDeadline = deadline.cutIfOverdue(at: queued + .seconds(20), newRequestID: { "new" })
        #expect(cutAtTheDeadline == .response)
        #expect(deadline.requestID == "first")
        deadline.responseFinished(at: queued + .seconds(21))
        #expect(deadline.cut == .response, "a cut connection stays cut")
    }

    @Test func keepAliveFollowsTheIdleTimeoutAndAStreamHasNoDeadlineHere() {
        let opened = ContinuousClock.now
        var deadline = ConnectionDeadline(
            openedAt: opened, requestTimeout: .seconds(30), idleTimeout: .seconds(10), responseTimeout: .seconds(20))
        deadline.requestLineArrived(at: opened)
        _ = deadline.requestReceived()
        deadline.responseQueued(at: opened)

        // Keep-alive: the next request line may come up to the idle timeout
        // later, and then has the request timeout.
        let answered = opened + .seconds(5)
        deadline.responseFinished(at: answered)
        #expect(!deadline.requestUnderway && deadline.requestID == nil)
        #expect(deadline.phase == .receiving(until: answered + .seconds(40)))
        deadline.requestLineArrived(at: answered + .seconds(5))
        #expect(deadline.phase == .receiving(until: answered + .seconds(35)))

        _ = deadline.requestReceived()
        deadline.streamStarted(at: answered + .seconds(6))
        let cutStreaming = deadline.cutIfOverdue(at: answered + .seconds(6000), newRequestID: { "new" })
        #expect(cutStreaming == nil, "a stream bounds itself")
    }

    @Test func idleConnectionsAreShedFirstAndBusyOnesNever() {
        let opened = ContinuousClock.now
        var deadline = ConnectionDeadline(
            openedAt: opened, requestTimeout: .seconds(30), idleTimeout: .seconds(10), responseTimeout: .seconds(20))
        #expect(deadline.sheddingRank == 0, "connected, no request yet")
        deadline.requestLineArrived(at: opened)
        #expect(deadline.sheddingRank == 1, "a request arriving")
        _ = deadline.requestReceived()
        #expect(deadline.sheddingRank == nil, "its handler runs")
        let shedAnswering = deadline.shed()
        #expect(!shedAnswering)
        deadline.responseQueued(at: opened)
        #expect(deadline.sheddingRank == 2, "a response leaving")
        deadline.responseFinished(at: opened + .seconds(1))
        #expect(deadline.sheddingRank == 0, "kept alive")
        #expect(deadline.phaseBegan == opened + .seconds(1))
        let shed = deadline.shed()
        #expect(shed)
        #expect(deadline.cut == .shed)
        #expect(deadline.sheddingRank == nil)
        let answered = deadline.requestReceived()
        #expect(!answered, "a shed connection is not answered")
    }
}
