import Testing
import TidingsSynchronization

@Suite struct WakeSignalTests {
    @Test func aWakeBeforeTheWaitIsKept() {
        let signal = WakeSignal()
        signal.wake()
        #expect(signal.wait(timeout: .seconds(30)))
    }

    /// Many wakes while the loop is busy cost it one extra turn.
    @Test func wakesCoalesce() {
        let signal = WakeSignal()
        for _ in 0..<100 { signal.wake() }
        #expect(signal.wait(timeout: .seconds(30)))
        // Timing the second wait flaked: dispatch may end a wait a
        // fraction of a millisecond before ContinuousClock says it should.
        #expect(!signal.wait(timeout: .milliseconds(200)))
    }
}
