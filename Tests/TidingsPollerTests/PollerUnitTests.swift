import Foundation
import Testing
import TidingsDomain
import TidingsTestSupport

@testable import TidingsPoller

@Suite struct LineDiffTests {
    @Test func unifiedDiffShowsChangedLinesWithContext() {
        let old = ["a", "b", "c", "d", "e", "f", "g", "h"]
        let new = ["a", "b", "c", "d", "E", "f", "g", "h", "i"]
        let text = LineDiff(from: old, to: new).unified(maximumBytes: 4096)
        #expect(
            text == """
                --- previous
                +++ current
                @@ -2,7 +2,8 @@
                 b
                 c
                 d
                -e
                +E
                 f
                 g
                 h
                +i

                """)
    }

    @Test func identicalInputHasNoDiff() {
        #expect(LineDiff(from: ["x"], to: ["x"]).unified(maximumBytes: 100) == "")
    }

    @Test func longDiffsAreCutOnALineBoundaryAndSaySo() {
        let new = (0..<500).map { "line \($0)" }
        let text = LineDiff(from: [], to: new).unified(maximumBytes: 200)
        #expect(text.utf8.count <= 200)
        #expect(text.hasSuffix("... (diff truncated)\n"))
        #expect(text.contains("+line 0\n"))
    }

    @Test func snapshotTextSplitsIntoSentences() {
        #expect(SnapshotLines.split("One. Two! Three? Four") == ["One.", "Two!", "Three?", "Four"])
        #expect(SnapshotLines.split("") == [])
        #expect(SnapshotLines.split("Title\nOne. Two\nThree") == ["Title", "One.", "Two", "Three"])
    }

    /// line-diff (fuzz): a long piece is wrapped at the first space once
    /// it reaches the width; a long word after an early space stays whole.
    @Test func longPiecesWrapAtTheFirstSpacePastTheWidth() {
        let word = String(repeating: "w", count: 100)
        let paragraph = Array(repeating: word, count: 4).joined(separator: " ")
        #expect(SnapshotLines.split(paragraph) == [word + " " + word, word + " " + word])
        let longWord = "a " + String(repeating: "x", count: 300)
        #expect(SnapshotLines.split(longWord) == [longWord])
    }
}

@Suite struct HostGateStateTests {
    @Test func concurrencyAndGapAreEnforced() {
        var gate = HostGateState<Int>(concurrency: 2)
        let gap = { (last: Int) in last + 10 }
        #expect(gate.tryStart(now: 0, earliestAfterLastStart: gap) == .start)
        #expect(gate.tryStart(now: 5, earliestAfterLastStart: gap) == .waitUntil(10))
        #expect(gate.tryStart(now: 10, earliestAfterLastStart: gap) == .start)
        #expect(gate.tryStart(now: 30, earliestAfterLastStart: gap) == .waitForSlot)
        gate.finish()
        #expect(gate.tryStart(now: 40, earliestAfterLastStart: gap) == .start)
    }

    /// A smaller share with requests in flight: those finish, and nothing
    /// starts until the gate is below the new cap.
    @Test func aLoweredCapWaitsForRequestsAboveIt() {
        var gate = HostGateState<Int>(concurrency: 3)
        let noGap = { (last: Int) in last }
        for _ in 0..<3 { #expect(gate.tryStart(now: 0, earliestAfterLastStart: noGap) == .start) }
        gate.limit(to: 1)
        gate.finish()
        #expect(gate.tryStart(now: 1, earliestAfterLastStart: noGap) == .waitForSlot)
        gate.finish()
        #expect(gate.tryStart(now: 2, earliestAfterLastStart: noGap) == .waitForSlot)
        gate.finish()
        #expect(gate.tryStart(now: 3, earliestAfterLastStart: noGap) == .start)
        gate.limit(to: 0)
        #expect(gate.concurrency == 1, "every replica keeps at least one request per host")
    }
}

@Suite struct LiveOwnersTests {
    @Test func theCapIsSharedRoundedDownButNeverBelowOne() {
        #expect(LiveOwners(count: 1).share(of: 2) == 2)
        #expect(LiveOwners(count: 2).share(of: 2) == 1)
        #expect(LiveOwners(count: 3).share(of: 2) == 1)
        #expect(LiveOwners(count: 3).share(of: 256) == 85)
        #expect(LiveOwners(count: 0).count == 1)
        #expect(LiveOwners(count: -5).share(of: 4) == 4)
    }
}

@Suite struct HostLimiterShareTests {
    /// A request waiting for a slot starts as soon as a larger share
    /// (another poller left) makes room for it.
    @Test func aLargerShareStartsWaitingRequests() async throws {
        let limiter = HostLimiter(concurrency: 2, minimumGap: .zero)
        limiter.share(among: LiveOwners(count: 2))
        #expect(limiter.concurrency == 1)
        #expect(await limiter.acquire(site: "origin:80", host: "origin:80", user: nil) == .granted)
        let waiting = Task { await limiter.acquire(site: "origin:80", host: "origin:80", user: nil) }
        #expect(try await eventually(every: .milliseconds(1)) { limiter.waitingCount(site: "origin:80") == 1 })
        limiter.share(among: LiveOwners(count: 1))
        #expect(await waiting.value == .granted)
        #expect(limiter.concurrency == 2)
        limiter.close()
    }
}

@Suite struct ScheduleTests {
    private let schedule = CheckSchedule(jitter: 0.1, maximumBackoff: .seconds(3600))
    private let now = Date(timeIntervalSince1970: 1_000_000)

    @Test func successIsNeverLaterThanTheInterval() {
        let bounds = CheckBounds(intervalSeconds: 100, maximumSeconds: 100)
        #expect(
            schedule.afterSuccess(now: now, bounds: bounds, unchangedSince: now, cacheLifetime: nil, random: 0)
                == now.addingTimeInterval(100))
        #expect(
            schedule.afterSuccess(now: now, bounds: bounds, unchangedSince: now, cacheLifetime: nil, random: 1)
                == now.addingTimeInterval(90))
    }

    @Test func failuresBackOffExponentiallyUpToTheCap() {
        let delays = (0..<8).map {
            schedule.afterFailure(now: now, intervalSeconds: 60, previousFailures: $0, retryAfter: nil, random: 1).timeIntervalSince(now)
        }
        #expect(delays == [60, 120, 240, 480, 960, 1920, 3600, 3600])
        let jittered = schedule.afterFailure(now: now, intervalSeconds: 60, previousFailures: 0, retryAfter: nil, random: 0)
        #expect(jittered.timeIntervalSince(now) == 45)
    }

    @Test func retryAfterWinsWhenLonger() {
        let next = schedule.afterFailure(now: now, intervalSeconds: 60, previousFailures: 0, retryAfter: .seconds(600), random: 1)
        #expect(next.timeIntervalSince(now) == 600)
    }
}

@Suite struct ValidatorTests {
    @Test func keepsOrdinaryValidators() {
        #expect(TargetChecker.validator("\"v1\"") == "\"v1\"")
        #expect(TargetChecker.validator("W/\"abc\"") == "W/\"abc\"")
        #expect(TargetChecker.validator("Sun, 06 Nov 1994 08:49:37 GMT") == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test func dropsHostileValidators() {
        #expect(TargetChecker.validator(nil) == nil)
        #expect(TargetChecker.validator("") == nil)
        #expect(TargetChecker.validator("\"a\u{0}b\"") == nil)
        #expect(TargetChecker.validator("\"a\u{1b}[31m\"") == nil)
        #expect(TargetChecker.validator("\"a\u{7f}\"") == nil)
        #expect(TargetChecker.validator("\"" + String(repeating: "e", count: 2000) + "\"") == nil)
    }
}
