import Testing
@testable import TidingsHTTPServer

/// The deadline's rules with plain instants: no sockets, no sleeping.
@Suite struct ReceiveDeadlineTests {
    @Test func aNewConnectionHasTheRequestTimeoutFromItsOpening() {
        let opened = ContinuousClock.now
        var deadline = ReceiveDeadline(openedAt: opened, requestTimeout: .seconds(30), idleTimeout: .seconds(10))
        // A late request line does not extend the first request's deadline.
        deadline.requestLineArrived(at: opened + .seconds(20))
        #expect(deadline.phase == .receiving(until: opened + .seconds(30)))
        let cutBeforeTheDeadline = deadline.cutIfOverdue(at: opened + .seconds(29), newRequestID: { "new" })
        #expect(!cutBeforeTheDeadline)
        let cutAtTheDeadline = deadline.cutIfOverdue(at: opened + .seconds(30), newRequestID: { "new" })
        #expect(cutAtTheDeadline)
        #expect(deadline.requestID == "new")
        let cutAgain = deadline.cutIfOverdue(at: opened + .seconds(31), newRequestID: { "again" })
        #expect(!cutAgain, "a connection is cut once")
        let answered = deadline.requestReceived()
        #expect(!answered, "a cut request is not answered")
    }

    @Test func aSilentConnectionIsCutWithoutARequestToAnswer() {
        let opened = ContinuousClock.now
        var deadline = ReceiveDeadline(openedAt: opened, requestTimeout: .seconds(30), idleTimeout: .seconds(10))
        let cutSilent = deadline.cutIfOverdue(at: opened + .seconds(30), newRequestID: { "new" })
        #expect(cutSilent)
        #expect(!deadline.requestUnderway)
        #expect(deadline.requestID == nil)
    }

    @Test func answeringAndKeepAliveAreNotBoundByTheDeadline() {
        let opened = ContinuousClock.now
        var deadline = ReceiveDeadline(openedAt: opened, requestTimeout: .seconds(30), idleTimeout: .seconds(10))
        deadline.requestLineArrived(at: opened)
        deadline.headReceived(requestID: "first")
        let mayAnswer = deadline.requestReceived()
        #expect(mayAnswer)
        // A slow handler or a slow reader of the response: not cut.
        let cutWhileAnswering = deadline.cutIfOverdue(at: opened + .seconds(600), newRequestID: { "new" })
        #expect(!cutWhileAnswering)

        // Keep-alive: the next request line may come up to the idle timeout
        // later, and then has the request timeout.
        let answered = opened + .seconds(600)
        deadline.responseFinished(at: answered)
        #expect(!deadline.requestUnderway && deadline.requestID == nil)
        #expect(deadline.phase == .receiving(until: answered + .seconds(40)))
        deadline.requestLineArrived(at: answered + .seconds(5))
        #expect(deadline.phase == .receiving(until: answered + .seconds(35)))
        let cutKeptAlive = deadline.cutIfOverdue(at: answered + .seconds(35), newRequestID: { "new" })
        #expect(cutKeptAlive)
        #expect(deadline.requestID == "new")
        deadline.responseFinished(at: answered + .seconds(36))
        #expect(deadline.phase == .cut, "a cut connection stays cut")
    }
}
