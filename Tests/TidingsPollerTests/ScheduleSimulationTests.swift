import Foundation
import Testing
import TidingsTestSupport

@testable import TidingsPoller

/// The issue 16 workload on a simulated clock, driven by the real
/// `CheckSchedule` (decision 0028; `bench/schedule.sh` prints the figures,
/// docs/BENCHMARKS.md records them): 90 % of the pages never change, 10 %
/// change every `changePeriod`, all added together at time zero. Each
/// check happens exactly when the previous one scheduled it (a poller with
/// capacity to spare); a changing page's detection delay runs from the
/// first change a check had not yet seen to the check that sees it.
struct ScheduleSimulation {
    var pages = 1000
    var changingShare = 0.1
    var changePeriod = 300.0
    var intervalSeconds = 60
    var maximumSeconds = 3600
    var duration = 86_400.0
    /// Checks and delays before this time are not counted (a later day
    /// shows the steady state, once unchanged pages have backed off).
    var countFrom = 0.0
    var seed: UInt64 = 16

    struct Result {
        var checks = 0
        var changingChecks = 0
        var detected = 0
        var delays: [Double] = []

        var longestDelay: Double { delays.max() ?? 0 }
        var meanDelay: Double { delays.isEmpty ? 0 : delays.reduce(0, +) / Double(delays.count) }
    }

    func run(maximumSeconds: Int) -> Result {
        let schedule = CheckSchedule(jitter: 0.1, maximumBackoff: .seconds(86_400))
        let bounds = CheckBounds(intervalSeconds: intervalSeconds, maximumSeconds: maximumSeconds)
        let epoch = Date(timeIntervalSince1970: 1_800_000_000)
        var generator = SeededRandomNumberGenerator(seed: seed)
        var result = Result()
        let changing = Int((Double(pages) * changingShare).rounded())
        for page in 0..<pages {
            let changes = page < changing
            // Changes happen at phase + k * period.
            let phase = Double.random(in: 0..<changePeriod, using: &generator)
            func version(at time: Double) -> Int { changes && time >= phase ? Int(((time - phase) / changePeriod).rounded(.down)) + 1 : 0 }
            var now = 0.0
            var seenVersion = 0
            var contentChangedAt = 0.0
            while now < duration {
                let counted = now >= countFrom
                if counted {
                    result.checks += 1
                    if changes { result.changingChecks += 1 }
                }
                let current = version(at: now)
                var changed = false
                if current != seenVersion {
                    // The first change since the last check happened at phase + seenVersion * period.
                    let firstUnseen = phase + Double(seenVersion) * changePeriod
                    if counted {
                        result.delays.append(now - firstUnseen)
                        result.detected += 1
                    }
                    seenVersion = current
                    contentChangedAt = now
                    changed = true
                }
                let next = schedule.afterSuccess(
                    now: epoch.addingTimeInterval(now),
                    bounds: bounds,
                    unchangedSince: epoch.addingTimeInterval(changed ? now : contentChangedAt),
                    cacheLifetime: nil,
                    random: Double.random(in: 0...1, using: &generator)
                )
                now = next.timeIntervalSince(epoch)
            }
        }
        return result
    }
}

@Suite struct ScheduleSimulationTests {
    /// Runs fixed (max = interval) and adaptive, prints both, returns the ratio of checks.
    private func compare(_ simulation: ScheduleSimulation, label: String) -> (
        ratio: Double, fixed: ScheduleSimulation.Result, adaptive: ScheduleSimulation.Result
    ) {
        let fixed = simulation.run(maximumSeconds: simulation.intervalSeconds)
        let adaptive = simulation.run(maximumSeconds: simulation.maximumSeconds)
        let ratio = Double(fixed.checks) / Double(adaptive.checks)
        print(
            String(
                format: "schedule simulation, %@: %d pages (%d%% change every %.0f s), interval %d s, max %d s, hours %.0f-%.0f\n"
                    + "  fixed:    %d checks (%d of changing pages), %d changes seen, delay mean %.1f s, longest %.1f s\n"
                    + "  adaptive: %d checks (%d of changing pages), %d changes seen, delay mean %.1f s, longest %.1f s\n"
                    + "  checks fall %.2fx",
                label, simulation.pages, Int(simulation.changingShare * 100), simulation.changePeriod, simulation.intervalSeconds,
                simulation.maximumSeconds, simulation.countFrom / 3600, simulation.duration / 3600,
                fixed.checks, fixed.changingChecks, fixed.detected, fixed.meanDelay, fixed.longestDelay,
                adaptive.checks, adaptive.changingChecks, adaptive.detected, adaptive.meanDelay, adaptive.longestDelay,
                ratio
            ))
        return (ratio, fixed, adaptive)
    }

    @Test func adaptiveSchedulesCutChecksFivefoldAndKeepDetectionWithinTheInterval() {
        var simulation = ScheduleSimulation()
        for label in ["first day, from the moment all pages are added", "second day, steady state"] {
            let (ratio, fixed, adaptive) = compare(simulation, label: label)
            #expect(ratio >= 5)
            #expect(adaptive.longestDelay <= Double(simulation.intervalSeconds))
            // Every change is seen as soon as with fixed checks: none is skipped over.
            #expect(adaptive.detected == fixed.detected)
            simulation.countFrom = simulation.duration
            simulation.duration *= 2
        }
    }
}
