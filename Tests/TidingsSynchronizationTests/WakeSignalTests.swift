import Testing
import TidingsSynchronization

@Suite struct WakeSignalTests {
    @Test func aWakeBeforeTheWaitIsKept() {
        let signal = WakeSignal()
        signal.wake()
        let started = ContinuousClock.now
        signal.wait(timeout: .seconds(30))
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// Many wakes while the loop is busy cost it one extra turn.
    @Test func wakesCoalesce() {
        let signal = WakeSignal()
        for _ in 0..<100 { signal.wake() }
        signal.wait(timeout: .seconds(30))
        let started = ContinuousClock.now
        signal.wait(timeout: .milliseconds(200))
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }
}
