import Testing
import TidingsSynchronization

@Suite struct ServiceGroupTests {
    /// Records starts and stops, in order, across services.
    final class Journal: Sendable {
        private let entries = AdaptiveMutex<[String]>([])

        func note(_ entry: String) {
            entries.withLock { $0.append(entry) }
        }

        var all: [String] {
            entries.withLock { $0 }
        }
    }

    struct StartRefused: Error {}

    final class RecordingService: Service {
        let name: String
        let journal: Journal
        let refusesStart: Bool
        /// When set, `stop` blocks until it is opened (a service that hangs).
        let hangs: Mailbox<Void>?
        private let deadlines = AdaptiveMutex<[ContinuousClock.Instant]>([])

        init(_ name: String, journal: Journal, refusesStart: Bool = false, hangs: Mailbox<Void>? = nil) {
            self.name = name
            self.journal = journal
            self.refusesStart = refusesStart
            self.hangs = hangs
        }

        var stopDeadlines: [ContinuousClock.Instant] {
            deadlines.withLock { $0 }
        }

        func start() throws {
            if refusesStart { throw StartRefused() }
            journal.note("start \(name)")
        }

        func stop(deadline: ContinuousClock.Instant) {
            deadlines.withLock { $0.append(deadline) }
            journal.note("stop \(name)")
            if let hangs { hangs.wait() }
        }
    }

    @Test func startsInOrderAndStopsInReverse() throws {
        let journal = Journal()
        let group = ServiceGroup(stopTimeout: .seconds(5))
        let services = ["pool", "engine", "server"].map { RecordingService($0, journal: journal) }
        try group.start([.init("pool", services[0])])
        try group.start([.init("engine", services[1]), .init("server", services[2])])
        #expect(group.names == ["pool", "engine", "server"])

        let deadline = ContinuousClock.now + .seconds(5)
        let late = group.stop(deadline: deadline)

        #expect(late.isEmpty)
        #expect(journal.all == ["start pool", "start engine", "start server", "stop server", "stop engine", "stop pool"])
        // One deadline for all of them.
        #expect(services.allSatisfy { $0.stopDeadlines == [deadline] })
    }

    @Test func aFailedStartStopsEverythingHandedOverAndRethrows() throws {
        let journal = Journal()
        let group = ServiceGroup(stopTimeout: .seconds(5))
        try group.start([.init("pool", RecordingService("pool", journal: journal))])
        #expect(throws: StartRefused.self) {
            try group.start([
                .init("engine", RecordingService("engine", journal: journal)),
                .init("server", RecordingService("server", journal: journal, refusesStart: true)),
                .init("never", RecordingService("never", journal: journal)),
            ])
        }
        // What failed and what never started are stopped too: they may hold
        // what their init made.
        #expect(journal.all == ["start pool", "start engine", "stop never", "stop server", "stop engine", "stop pool"])
        #expect(group.names.isEmpty)
    }

    @Test func aHangingServiceDoesNotHoldTheRestPastTheDeadline() {
        let journal = Journal()
        let release = Mailbox<Void>()
        defer { release.deliver(()) }
        let group = ServiceGroup(stopTimeout: .seconds(5), overrun: .milliseconds(100))
        let first = RecordingService("first", journal: journal)
        let stuck = RecordingService("stuck", journal: journal, hangs: release)
        let last = RecordingService("last", journal: journal)
        #expect(throws: Never.self) {
            try group.start([.init("first", first), .init("stuck", stuck), .init("last", last)])
        }

        let began = ContinuousClock.now
        let late = group.stop(deadline: began + .milliseconds(300))
        let took = ContinuousClock.now - began

        #expect(late == ["stuck"])
        // The stuck one cost the deadline and the overrun, no more; the one
        // started before it was still stopped.
        #expect(took >= .milliseconds(400))
        #expect(took < .seconds(30), "the stuck service held the stop past its deadline")
        #expect(journal.all.suffix(3) == ["stop last", "stop stuck", "stop first"])
    }

    @Test func aSecondStopFindsNothing() throws {
        let journal = Journal()
        let group = ServiceGroup(stopTimeout: .seconds(5))
        try group.start([.init("only", RecordingService("only", journal: journal))])
        group.stop(deadline: .now + .seconds(1))
        group.stop(deadline: .now + .seconds(1))
        #expect(journal.all == ["start only", "stop only"])
    }
}
