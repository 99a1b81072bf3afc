import Testing

@testable import TidingsSynchronization

/// The pool's rules without threads: who is abandoned when, and how many
/// threads start.
@Suite struct ThreadPoolRosterTests {
    private typealias Roster = ThreadPoolRoster<String>
    private let start = ContinuousClock.now

    @Test func startsSizeWorkersAtFirst() {
        var roster = Roster(size: 3, abandonedThreadLimit: 12)
        #expect(roster.initialWorkers() == [0, 1, 2])
        #expect(roster.liveCount == 3)
        #expect(roster.review(at: start).starts.isEmpty)
    }

    @Test func onlyJobsPastTheirDeadlineAreAbandonedAndEachIsReplaced() {
        var roster = Roster(size: 2, abandonedThreadLimit: 8)
        _ = roster.initialWorkers()
        roster.started(0, thread: 100)
        roster.started(1, thread: 101)
        roster.began(0, deadline: start + .seconds(1), abandon: "slow")
        roster.began(1, deadline: nil, abandon: nil)
        #expect(roster.nextDeadline == start + .seconds(1))
        #expect(roster.review(at: start + .milliseconds(999)).abandoned.isEmpty)

        let review = roster.review(at: start + .seconds(1))
        #expect(review.abandoned.map(\.abandon) == ["slow"])
        #expect(review.abandoned.map(\.thread) == [100])
        #expect(review.abandoned.map(\.report) == [ThreadPoolAbandonment(abandonedThreads: 1, isReplaced: true)])
        #expect(review.starts == [2])
        #expect(roster.liveCount == 2 && roster.abandonedCount == 1)
        // Abandoned once only; a job without a deadline never is.
        #expect(roster.review(at: start + .seconds(3600)).abandoned.isEmpty)
        #expect(roster.nextDeadline == nil)
        // Its job returns: the worker exits, the pool is already full.
        #expect(roster.ended(0) == false)
        #expect(roster.abandonedCount == 0)
        #expect(roster.review(at: start + .seconds(2)).starts.isEmpty)
        #expect(roster.ended(1) == true)
    }

    @Test func pastTheLimitAnAbandonedWorkerIsReplacedOnlyWhenAnAbandonedJobEnds() {
        var roster = Roster(size: 1, abandonedThreadLimit: 1)
        _ = roster.initialWorkers()
        roster.began(0, deadline: start, abandon: "first")
        let first = roster.review(at: start)
        #expect(first.starts == [1])
        #expect(first.abandoned.first?.report.isReplaced == true)

        roster.began(1, deadline: start, abandon: "second")
        let second = roster.review(at: start)
        #expect(second.starts.isEmpty)
        #expect(second.abandoned.first?.report == ThreadPoolAbandonment(abandonedThreads: 2, isReplaced: false))
        #expect(roster.liveCount == 0 && roster.abandonedCount == 2)

        #expect(roster.ended(0) == false)
        #expect(roster.review(at: start).starts == [2])
        #expect(roster.liveCount == 1 && roster.abandonedCount == 1)
    }

    @Test func aRefusedThreadIsTriedAgainAndNothingStartsOnceClosed() {
        var roster = Roster(size: 2, abandonedThreadLimit: 0)
        _ = roster.initialWorkers()
        roster.failedToStart(1)
        #expect(roster.liveCount == 1)
        #expect(roster.review(at: start).starts == [2])
        roster.failedToStart(2)
        roster.close()
        #expect(roster.review(at: start).starts.isEmpty)
        roster.exited(0)
        #expect(roster.liveCount == 0)
    }

    /// Without a limit an abandoned job still answers its caller; the pool
    /// just gets no replacement until the job ends.
    @Test func aZeroLimitStillAbandons() {
        var roster = Roster(size: 1, abandonedThreadLimit: 0)
        _ = roster.initialWorkers()
        roster.began(0, deadline: start, abandon: "only")
        let review = roster.review(at: start)
        #expect(review.abandoned.map(\.abandon) == ["only"])
        #expect(review.starts.isEmpty)
        #expect(roster.ended(0) == false)
        #expect(roster.review(at: start).starts == [1])
    }
}
