import Foundation
import Synchronization
import Testing
import TidingsPostgres
import TidingsTestSupport

/// The poller's holds (decisions 0057, 0058) across SIGKILL: a killed
/// process leaves its targets held, out of every other poller's walk, and
/// the next process takes them over once the dead one's heartbeat is
/// stale, and records each change once.
@Suite(.serialized) struct PollerResilienceTests {
    @Test(.timeLimit(.minutes(2)))
    func aKilledPollersHoldsAreTakenOverByTheNextProcessAndEachChangeRecordedOnce() async throws {
        let version = Atomic<Int>(1)
        let origin = try TestOriginServer { request in .text("page \(request.path) version \(version.load(ordering: .relaxed))") }
        defer { origin.stop() }
        let tidings = try await ProcessHarness()
        defer { tidings.stop() }
        let user = try await tidings.createUser()
        let count = 20
        for index in 0..<count {
            try await tidings.api.expect(
                201, "POST", "/v1/watches", token: user.key, json: ["url": "\(origin.baseURL)/\(index)", "interval_seconds": 60])
        }
        // Every baseline taken and every target held by the process.
        #expect(
            try await eventually(timeout: .seconds(30)) {
                try tidings.scalar(
                    "SELECT count(*)::int AS n FROM targets WHERE last_checked_at IS NOT NULL AND lease_held AND lease_owner IS NOT NULL")
                    == count
            })

        let before = try tidings.scalar("SELECT count(*)::int AS n FROM changes")
        tidings.kill()
        version.store(2, ordering: .relaxed)
        // Due now, as the dead process would have had them in its schedule.
        // Held targets are out of the walk of due targets until their holds
        // end (decision 0058), and anything but their holder that moves
        // their next check earlier ends the holds; this session stands in
        // for the holder, so that trigger stays out.
        try tidings.database.withConnection { connection in
            try connection.execute("SET session_replication_role = replica")
            defer { _ = try? connection.execute("RESET session_replication_role") }
            try connection.execute("UPDATE targets SET next_check_at = now()")
        }
        #expect(try tidings.scalar("SELECT count(*)::int AS n FROM targets WHERE lease_held AND claim_at = 'infinity'") == count)

        let restarted = ContinuousClock.now
        try tidings.restart()
        #expect(
            try await eventually(timeout: .seconds(45), every: .milliseconds(100)) {
                try tidings.scalar("SELECT count(*)::int AS n FROM changes") >= before + count
            })
        let recovery = ContinuousClock.now - restarted
        #expect(recovery < .seconds(40), "took over in \(recovery)")
        #expect(try tidings.scalar("SELECT count(*)::int AS n FROM changes") == before + count, "one change each")
        #expect(try tidings.scalar("SELECT count(*)::int AS n FROM watches WHERE unread_count = 1") == count)
        #expect(
            try tidings.scalar(
                """
                SELECT count(*)::int AS n FROM targets t
                WHERE NOT EXISTS (SELECT 1 FROM lease_owners o WHERE o.owner = t.lease_owner) AND t.lease_owner IS NOT NULL
                """) == 0, "no target is left held by the killed process")
    }

    /// A paused process (a suspended VM, SIGSTOP) resumes with its holds:
    /// its engines stalled together, so none of them takes the others for
    /// dead when it beats first (`LeaseProcess`). Before, the first to beat
    /// reaped its siblings' rows, which freed every hold of the poller
    /// and deadlocked the reap against the poller's own writes.
    @Test(.timeLimit(.minutes(2)))
    func aPausedProcessKeepsItsHoldsAndItsEnginesDoNotReapEachOther() async throws {
        let origin = try TestOriginServer { request in .text("page \(request.path)") }
        defer { origin.stop() }
        let tidings = try await ProcessHarness()
        defer { tidings.stop() }
        let user = try await tidings.createUser()
        let count = 5
        for index in 0..<count {
            try await tidings.api.expect(
                201, "POST", "/v1/watches", token: user.key, json: ["url": "\(origin.baseURL)/\(index)", "interval_seconds": 60])
        }
        let heldByThePoller: PostgresQuery = """
            SELECT count(*)::int AS n FROM targets t JOIN lease_owners o ON o.owner = t.lease_owner
            WHERE t.lease_held AND o.holds = 'targets'
            """
        #expect(try await eventually(timeout: .seconds(30)) { try tidings.scalar(heldByThePoller) == count })
        func owners() throws -> [String: String] {
            Dictionary(
                uniqueKeysWithValues: try tidings.database.query("SELECT owner, started_at::text AS started FROM lease_owners").map {
                    (try $0.decode("owner", as: String.self), try $0.decode("started", as: String.self))
                })
        }
        let before = try owners()
        #expect(before.count == 3, "the poller and the two dispatchers")
        // Every engine's row is dead a second after its last beat, so the
        // first to beat after the pause finds the others' rows dead.
        _ = try tidings.database.query("UPDATE lease_owners SET dead_after = interval '1 second'")

        try await tidings.pause(for: .seconds(3))
        let resumed = try tidings.scalar("SELECT extract(epoch FROM now())::int AS n")

        // Every engine has beaten since: a reaped one would have
        // registered again, under a new started_at.
        #expect(
            try await eventually(timeout: .seconds(15)) {
                try tidings.scalar("SELECT count(*)::int AS n FROM lease_owners WHERE extract(epoch FROM heartbeat_at) > \(resumed + 1)")
                    == 3
            })
        #expect(try owners() == before, "no engine's row was reaped and registered again")
        #expect(try tidings.scalar(heldByThePoller) == count, "the poller kept its holds")
    }
}
