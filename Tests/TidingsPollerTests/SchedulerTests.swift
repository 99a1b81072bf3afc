import Foundation
import Testing
import TidingsDomain
import TidingsPostgres
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// The background scheduler: claiming, leases, dedupe and politeness,
/// against real loopback origins and a real database.
@Suite(.serialized) struct SchedulerTests {
    @Test func twoUsersOfOneURLCostOneRequest() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try TestOriginServer { request in
            script.record(request)
            return .text("shared page")
        }
        defer { origin.stop(); context.close() }
        let first = try context.watch(user: try context.user(), url: "\(origin.baseURL)/shared")
        let second = try context.watch(user: try context.user(), url: "\(origin.baseURL)/shared")
        #expect(first.targetID == second.targetID)

        let poller = try context.poller(concurrency: 8)
        defer { poller.stop() }
        #expect(
            try await eventually {
                try context.reload(first).contentHash != nil && context.reload(second).contentHash != nil
            })
        #expect(script.requests.count == 1)
        #expect(try context.reload(first).contentHash == context.reload(second).contentHash)
    }

    @Test func retryAfterIsHonoured() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try TestOriginServer { request in
            script.record(request)
            if script.requests.count == 1 { return TestResponse(status: 429, headers: [("Retry-After", "2")]) }
            return .text("fine now")
        }
        defer { origin.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/", interval: 1)
        let poller = try context.poller(concurrency: 4)
        defer { poller.stop() }

        #expect(try await eventually { script.requests.count >= 2 })
        let requests = script.requests
        #expect(requests[0].at.duration(to: requests[1].at) >= .milliseconds(1950))
        #expect(try await eventually { try context.reload(watch).contentHash != nil })
    }

    /// An origin that takes 50 ms per request and counts how many it
    /// serves at once.
    private static func slowOrigin(_ script: OriginScript) throws -> TestOriginServer {
        try TestOriginServer { request in
            script.record(request)
            return script.inFlight {
                Thread.sleep(forTimeInterval: 0.05) // the origin's own pace, under test
                return .text("page \(request.path)")
            }
        }
    }

    /// One tenant's watches of slow origins can hold at most its share of
    /// the slots: another tenant's target is still checked at once. A
    /// hostile-input hunt had 1,000 tarpit watches of one user hold all 256
    /// slots, and another user's 2 s watch was checked once in 150 s.
    @Test func oneUsersSlowOriginsLeaveSlotsForOthers() async throws {
        let context = try PollerTestContext()
        let slow = OriginScript()
        let tarpit = try TestOriginServer { request in
            slow.record(request)
            return slow.inFlight {
                Thread.sleep(forTimeInterval: 4) // the tarpit under test
                return .text("slow \(request.path)")
            }
        }
        let fast = OriginScript()
        let origin = try fast.origin { _ in .text("fast") }
        defer { tarpit.stop(); origin.stop(); context.close() }
        let greedy = try context.user()
        for index in 0..<12 { _ = try context.watch(user: greedy, url: "\(tarpit.baseURL)/\(index)") }

        let poller = try context.poller(concurrency: 6) {
            $0.userConcurrency = 3
            $0.hostConcurrency = 100
        }
        defer { poller.stop(within: .zero) }
        #expect(try await eventually { slow.maximumActive >= 3 })
        let other = try context.watch(user: try context.user(), url: "\(origin.baseURL)/page")
        let added = ContinuousClock.now

        #expect(try await eventually(timeout: .seconds(10)) { try context.reload(other).contentHash != nil })
        // Without the share all six slots wait 4 s on the tarpit.
        #expect(ContinuousClock.now - added < .seconds(3))
        #expect(slow.maximumActive == 3, "the greedy user's checks in flight")
    }

    /// Twenty watches of one server, under its address or under twenty
    /// names made up under one domain, as wildcard DNS allows (every
    /// `*.localhost` is loopback to libcurl): one site, at most two
    /// requests at a time (decision 0038).
    @Test(arguments: [false, true])
    func perHostConcurrencyCapHolds(namesOfOneSite: Bool) async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try Self.slowOrigin(script)
        defer { origin.stop(); context.close() }
        let user = try context.user()
        for index in 0..<20 {
            let base = namesOfOneSite ? "http://name\(index).site.localhost:\(origin.port)" : origin.baseURL
            _ = try context.watch(user: user, url: "\(base)/\(index)")
        }
        let poller = try context.poller(concurrency: 16) { $0.hostConcurrency = 2 }
        defer { poller.stop() }

        #expect(try await eventually { script.requests.count >= 20 })
        #expect(script.maximumActive == 2, "the server saw \(script.maximumActive) requests at once")
    }

    /// The cap counts against the host each request goes to: watches of
    /// many tenants behind redirectors on other hosts and ports (and a
    /// trailing-dot spelling) still send at most two requests at a time to
    /// the one origin they all lead to.
    @Test func perHostCapHoldsAcrossRedirectorsAndTenants() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try Self.slowOrigin(script)
        let target = origin.port
        let redirectors = try (0..<3).map { _ in
            try TestOriginServer { request in .redirect(to: "http://127.0.0.1:\(target)/landing\(request.path)") }
        }
        defer { redirectors.forEach { $0.stop() }; origin.stop(); context.close() }
        let spellings = ["localhost", "LOCALHOST", "localhost."]
        for (index, redirector) in redirectors.enumerated() {
            for tenant in 0..<3 {
                let user = try context.user()
                for page in 0..<3 {
                    _ = try context.watch(user: user, url: "http://\(spellings[index]):\(redirector.port)/\(tenant)-\(page)")
                }
            }
        }
        for page in 0..<5 { _ = try context.watch(user: try context.user(), url: "\(origin.baseURL)/direct-\(page)") }
        let poller = try context.poller(concurrency: 32) { $0.hostConcurrency = 2 }
        defer { poller.stop() }

        #expect(try await eventually { script.requests.count >= 20 })
        #expect(script.maximumActive <= 2, "the origin saw \(script.maximumActive) requests at once")
        #expect(script.requests.contains { $0.path.hasPrefix("/landing/") })
    }

    /// `TIDINGS_HOST_CONCURRENCY` is the deployment's: two pollers on one
    /// database take a share of 1 each once their heartbeats have counted
    /// each other, so together they never exceed 2 at the origin, and the
    /// one left takes the whole cap back when the other stops.
    @Test func twoPollersShareThePerHostCap() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try Self.slowOrigin(script)
        defer { origin.stop(); context.close() }
        // Small claims, so both pollers hold some of the targets.
        let first = try context.poller(concurrency: 16) {
            $0.hostConcurrency = 2; $0.claimBatchSize = 2
        }
        let second = try context.poller(concurrency: 16) {
            $0.hostConcurrency = 2; $0.claimBatchSize = 2
        }
        defer { first.stop(); second.stop() }
        #expect(try await eventually(timeout: .seconds(10)) { first.hostConcurrency == 1 && second.hostConcurrency == 1 })

        let user = try context.user()
        for page in 0..<24 { _ = try context.watch(user: user, url: "\(origin.baseURL)/\(page)") }
        #expect(try await eventually { script.requests.count >= 24 })
        #expect(script.maximumActive <= 2, "the origin saw \(script.maximumActive) requests at once")

        second.stop()
        #expect(try await eventually(timeout: .seconds(10)) { first.hostConcurrency == 2 })
    }

    @Test func hostMinimumGapSpacesRequestStarts() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try TestOriginServer { request in
            script.record(request)
            return .text("page")
        }
        defer { origin.stop(); context.close() }
        let user = try context.user()
        for index in 0..<5 { _ = try context.watch(user: user, url: "\(origin.baseURL)/\(index)") }
        let poller = try context.poller(concurrency: 16) {
            $0.hostConcurrency = 4; $0.hostMinimumGap = .milliseconds(200)
        }
        defer { poller.stop() }

        #expect(try await eventually { script.requests.count >= 5 })
        // The limiter spaces starts 200 ms apart; the origin sees arrivals,
        // which a new connection or a busy machine delays (188 ms seen in
        // CI), so the bounds leave room: unspaced, the five would arrive
        // within a few ms. Jitter does not add up, so the whole span is tighter.
        let starts = script.requests.map(\.at)
        for (earlier, later) in zip(starts, starts.dropFirst()) {
            #expect(earlier.duration(to: later) >= .milliseconds(100))
        }
        if let first = starts.first, starts.count >= 5 {
            #expect(first.duration(to: starts[4]) >= .milliseconds(600))
        }
    }

    @Test func twoPollersOnOneDatabaseNeverCheckATargetTwice() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try TestOriginServer { request in
            script.record(request)
            return .text("page \(request.path)")
        }
        defer { origin.stop(); context.close() }
        let user = try context.user()
        let count = 60
        for index in 0..<count { _ = try context.watch(user: user, url: "\(origin.baseURL)/\(index)", interval: 3600) }
        let first = try context.poller(concurrency: 8) {
            $0.hostConcurrency = 8; $0.claimBatchSize = 5
        }
        let second = try context.poller(concurrency: 8) {
            $0.hostConcurrency = 8; $0.claimBatchSize = 5
        }
        defer { first.stop(); second.stop() }

        #expect(
            try await eventually {
                try context.database.query(
                    """
                    SELECT count(*)::integer AS n FROM targets
                    WHERE last_checked_at IS NOT NULL AND (lease_owner IS NULL OR lease_held)
                    """)[0].decode("n", as: Int.self) == count
            })
        #expect(script.requests.count == count)
        #expect(Set(script.requests.map(\.path)).count == count)
    }

    @Test func anExpiredLeaseOfACrashedPollerIsTakenOver() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try TestOriginServer { request in
            script.record(request)
            return .text("page")
        }
        defer { origin.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/")
        // A replica claims the target and dies mid-check: its lease runs 1.5 s.
        let crashed = CheckStore(database: context.database, failureThreshold: 3)
        // Taken before the claim: the lease runs from its transaction's
        // now(), which a slow claim puts later, never earlier.
        let leaseEnds = ContinuousClock.now + .milliseconds(1500)
        let claimed = try crashed.claimDue(owner: "crashed-replica", limit: 10, lease: .milliseconds(1500))
        #expect(claimed.map(\.id) == [watch.targetID])

        let poller = try context.poller(concurrency: 4)
        defer { poller.stop() }
        #expect(try await eventually { try context.reload(watch).contentHash != nil })
        let request = try #require(script.requests.first)
        #expect(request.at >= leaseEnds - .milliseconds(100))
        #expect(script.requests.count == 1)
    }

    @Test func aDeadPollersTargetsAreTakenOverOnceItsHeartbeatIsStaleNotWhenItsLeaseEnds() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try TestOriginServer { request in
            script.record(request)
            return .text("page")
        }
        defer { origin.stop(); context.close() }
        let user = try context.user()
        let deadWatch = try context.watch(user: user, url: "\(origin.baseURL)/dead")
        let liveWatch = try context.watch(user: user, url: "\(origin.baseURL)/live")
        // Two replicas claimed one target each under ten-minute leases; one
        // stopped beating 10 s ago (dead after 5 s), the other beat just now.
        let store = CheckStore(database: context.database, failureThreshold: 3)
        _ = try store.claim(targetID: deadWatch.targetID, owner: "dead-replica", lease: .seconds(600))
        _ = try store.claim(targetID: liveWatch.targetID, owner: "live-replica", lease: .seconds(600))
        _ = try context.database.query(
            """
            INSERT INTO lease_owners (owner, holds, heartbeat_at, dead_after) VALUES
                ('dead-replica', 'targets', now() - interval '10 seconds', interval '5 seconds'),
                ('live-replica', 'targets', now(), interval '1 hour')
            """)

        let started = ContinuousClock.now
        let poller = try context.poller(concurrency: 4)
        defer { poller.stop() }
        #expect(try await eventually { try context.reload(deadWatch).contentHash != nil })
        // The first beat of the new poller reaped the dead one at once.
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(script.requests.map(\.path) == ["/dead"])
        let owners = try context.database.query("SELECT owner FROM lease_owners ORDER BY owner").map {
            try $0.decode("owner", as: String.self)
        }
        #expect(owners.sorted() == ["live-replica", poller.owner].sorted())
        let live = try context.database.query("SELECT lease_owner FROM targets WHERE id = \(liveWatch.targetID)")[0]
        #expect(try live.decode("lease_owner", as: String?.self) == "live-replica")
    }

    /// Register and beat count the live owners of their kind, this one
    /// included; a beat after the owner's row was reaped returns nil.
    @Test func beatsCountLiveOwnersAndNoticeBeingReaped() throws {
        let context = try PollerTestContext()
        defer { context.close() }
        let store = LeaseOwnerStore(database: context.database)
        _ = try context.database.query(
            """
            INSERT INTO lease_owners (owner, holds, heartbeat_at, dead_after) VALUES
                ('other-poller', 'targets', now(), interval '1 hour'),
                ('stale-poller', 'targets', now() - interval '10 seconds', interval '5 seconds'),
                ('a-dispatcher', 'deliveries', now(), interval '1 hour')
            """)
        #expect(try store.register(owner: "me", holds: .targets, deadAfter: .seconds(5), process: LeaseProcess()).count == 2)
        #expect(try store.beat(owner: "me", holds: .targets)?.count == 2)
        #expect(try store.beat(owner: "a-dispatcher", holds: .deliveries)?.count == 1)
        _ = try context.database.query("DELETE FROM lease_owners WHERE owner = 'me'")
        #expect(try store.beat(owner: "me", holds: .targets) == nil)
    }

    /// A reap spares the owners of the reaper's own process however stale
    /// (`LeaseProcess`), and frees the dead owners of any other process,
    /// or of none (rows an older version wrote).
    @Test func aReapSparesTheReapersOwnProcess() throws {
        let context = try PollerTestContext()
        defer { context.close() }
        let user = try context.user()
        let mine = try context.watch(user: user, url: "https://example.com/mine")
        let theirs = try context.watch(user: user, url: "https://example.com/theirs")
        let checks = CheckStore(database: context.database, failureThreshold: 3)
        _ = try checks.claim(targetID: mine.targetID, owner: "sibling", lease: .seconds(600))
        _ = try checks.claim(targetID: theirs.targetID, owner: "elsewhere", lease: .seconds(600))
        let process = LeaseProcess()
        let store = LeaseOwnerStore(database: context.database)
        _ = try store.register(owner: "sibling", holds: .targets, deadAfter: .seconds(5), process: process)
        _ = try store.register(owner: "elsewhere", holds: .targets, deadAfter: .seconds(5), process: LeaseProcess())
        _ = try store.register(owner: "older-version", holds: .deliveries, deadAfter: .seconds(5), process: LeaseProcess())
        _ = try context.database.query(
            """
            UPDATE lease_owners SET heartbeat_at = now() - interval '1 minute',
                process = CASE owner WHEN 'older-version' THEN NULL ELSE process END
            """)

        let reaped = try store.reapDead(sparing: process)
        #expect(reaped.owners.sorted() == ["elsewhere", "older-version"])
        #expect(reaped.targets == 1)
        let leases = try context.database.query("SELECT id, lease_owner FROM targets").map {
            (try $0.decode("id", as: UUID.self), try $0.decode("lease_owner", as: String?.self))
        }
        #expect(leases.first { $0.0 == mine.targetID }?.1 == "sibling")
        #expect(leases.first { $0.0 == theirs.targetID }?.1 == nil)
        #expect(try store.reapDead(sparing: LeaseProcess()).owners == ["sibling"], "another process reaps it")
    }

    @Test func shutdownRemovesThePollersLeaseOwnerRow() async throws {
        let context = try PollerTestContext()
        defer { context.close() }
        let poller = try context.poller(concurrency: 4)
        #expect(
            try await eventually {
                try context.database.query("SELECT count(*)::int AS n FROM lease_owners WHERE owner = \(poller.owner)")[0].decode(
                    "n", as: Int.self) == 1
            })
        try await context.onThread { poller.stop(within: .milliseconds(200)) }
        #expect(try context.database.query("SELECT count(*)::int AS n FROM lease_owners")[0].decode("n", as: Int.self) == 0)
    }

    @Test func shutdownReleasesLeasesOfUnfinishedChecksAndHolds() async throws {
        let context = try PollerTestContext()
        let origin = try TestOriginServer { request in request.path == "/hang" ? .hang : .text("page") }
        defer { origin.stop(); context.close() }
        let user = try context.user()
        let hanging = try context.watch(user: user, url: "\(origin.baseURL)/hang")
        let checked = try context.watch(user: user, url: "\(origin.baseURL)/page", interval: 3600)
        let poller = try context.poller(concurrency: 4)
        #expect(try await eventually { try context.reload(checked).contentHash != nil && origin.receivedRequests == 2 })
        let held = try context.database.query("SELECT lease_owner, lease_held FROM targets WHERE id = \(checked.targetID)")[0]
        #expect(try held.decode("lease_owner", as: String?.self) == poller.owner)
        #expect(try held.decode("lease_held", as: Bool.self))

        try await context.onThread { poller.stop(within: .milliseconds(200)) }
        let owners = try context.database.query("SELECT count(lease_owner)::int AS n FROM targets")[0]
        #expect(try owners.decode("n", as: Int.self) == 0)
        #expect(try context.reload(hanging).lastCheckResult == nil)
    }
}
