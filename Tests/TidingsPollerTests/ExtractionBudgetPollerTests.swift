import Foundation
import Testing
import TidingsDomain
import TidingsExtraction
import TidingsObservability
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// A tenant's hostile rule or slow origin fails its own check; everyone
/// else's checks go on.
@Suite(.serialized) struct ExtractionBudgetPollerTests {
    @Test func hostileRulesFailTheirOwnChecksWhileOthersAreCheckedOnTime() async throws {
        let context = try PollerTestContext()
        // 60,000 nodes: count(//*//*//*//*) takes libxml2 minutes.
        let big = "<html><body>" + String(repeating: "<div><p>x</p></div>", count: 20_000) + "</body></html>"
        let backtracking = String(repeating: "a", count: 5_000) + "b"
        let origin = try TestOriginServer { request in
            switch request.path {
            case "/big": TestResponse(headers: [("Content-Type", "text/html")], body: Array(big.utf8))
            case "/aaa": .text(backtracking)
            default: .text("page \(request.path)")
            }
        }
        defer { origin.stop(); context.close() }
        let user = try context.user()
        let slowXPath = try context.watch(
            user: user, url: "\(origin.baseURL)/big", extract: ExtractionRule(selector: .xpath("count(//*//*//*//*)")))
        // Exponential for a backtracking engine; one pass for ours.
        let catastrophicRegex = try context.watch(
            user: user,
            url: "\(origin.baseURL)/aaa",
            extract: ExtractionRule(selector: .css("body"), ignorePatterns: ["(a+)+$"])
        )
        let others = try (0..<6).map { index in try context.watch(user: try context.user(), url: "\(origin.baseURL)/other/\(index)") }

        // One extraction thread: the hostile rule holds it as long as it can.
        let poller = try context.poller(concurrency: 8) { configuration in
            configuration.extractionThreads = 1
            configuration.extractionLimits.timeLimit = .milliseconds(300)
            configuration.failureThreshold = 1
        }
        defer { poller.stop() }

        #expect(
            try await eventually(timeout: .seconds(20)) {
                try others.allSatisfy { try context.reload($0).contentHash != nil }
                    && context.reload(catastrophicRegex).contentHash != nil
            })
        #expect(try await eventually(timeout: .seconds(20)) { try context.reload(slowXPath).state == .failing })
        let failed = try context.reload(slowXPath)
        #expect(
            failed.lastError?.hasPrefix("extraction failed: time_limit_exceeded: extraction took longer than 0.3 seconds") == true,
            "\(failed.lastError ?? "nil")")
        let regexWatch = try context.reload(catastrophicRegex)
        #expect(regexWatch.lastError == nil, "\(regexWatch.lastError ?? "")")
    }

    @Test func catastrophicIgnorePatternsJustWork() async throws {
        let context = try PollerTestContext()
        let text = String(repeating: "a", count: 5_000) + "b"
        let origin = try TestOriginServer { _ in .text(text) }
        let poller = try context.poller()
        defer { poller.stop(); origin.stop(); context.close() }
        let rule = ExtractionRule(selector: .css("body"), ignorePatterns: ["(a+)+$", "(a|aa)+c", #"(\w+\s?)*$"#])
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/", extract: rule)
        let result = try await context.check(watch, with: poller)
        #expect(result.result == .baseline)
        #expect(result.error == nil)
    }

    @Test func checkNowGivesUpAtItsDeadlineAndTheCheckIsStillWritten() async throws {
        let context = try PollerTestContext()
        let origin = try TestOriginServer { _ in
            // The slow origin under test: past the 0.3 s deadline of a check now.
            Thread.sleep(forTimeInterval: 2)
            return .text("slow page")
        }
        let poller = try context.poller { $0.checkNowTimeout = .milliseconds(300) }
        defer { poller.stop(); origin.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/")

        await #expect(throws: CheckNowTimeout.self) {
            try await context.onThread { try poller.checkNow(targetID: watch.targetID) }
        }
        // The check went on and was written as a scheduled one would be.
        #expect(try await eventually { try context.reload(watch).contentHash != nil })
        #expect(try context.reload(watch).lastError == nil)
    }

    /// XPath that libxml2 cannot interrupt (node-set merges that count no
    /// operations) is abandoned a grace past its limit: its check fails at
    /// once, and with two of them running on a two-thread pool another
    /// tenant's extraction is still on time.
    @Test func runawayXPathIsAbandonedAndOtherTenantsExtractOnTime() async throws {
        let context = try PollerTestContext()
        // 80,000 nodes: count(//node()//node()) merges for seconds without
        // counting an operation. With half as many, a fast machine ended the
        // merge in 0.6 s, saw the interruption and failed the check before
        // the abandonment at 0.8 s.
        let flat = "<html><body>" + String(repeating: "<p>x</p>", count: 40_000) + "</body></html>"
        let origin = try TestOriginServer { request in
            request.path.hasPrefix("/flat")
                ? TestResponse(headers: [("Content-Type", "text/html")], body: Array(flat.utf8))
                : TestResponse(headers: [("Content-Type", "text/html")], body: Array("<p>page \(request.path)</p>".utf8))
        }
        defer { origin.stop(); context.close() }
        let runaway = ExtractionRule(selector: .xpath("count(//node()//node())"))
        let runaways = try (0..<2).map { index in
            try context.watch(user: try context.user(), url: "\(origin.baseURL)/flat/\(index)", extract: runaway)
        }
        let other = try context.watch(
            user: try context.user(), url: "\(origin.baseURL)/other", extract: ExtractionRule(selector: .css("p")))
        let poller = try context.poller { configuration in
            configuration.extractionThreads = 2
            configuration.extractionLimits.timeLimit = .milliseconds(300)
        }
        defer { poller.stop() }

        let started = ContinuousClock.now
        async let first = context.check(runaways[0], with: poller)
        async let second = context.check(runaways[1], with: poller)
        let results = try await [first, second]
        let waited = started.duration(to: .now)
        for result in results {
            #expect(result.result == .failed)
            #expect(
                result.error?.hasPrefix("extraction failed: time_limit_exceeded: extraction took longer than 0.3 seconds (abandoned")
                    == true, "\(result.error ?? "nil")")
        }
        // 0.3 s and the 0.5 s grace, with room for a busy machine.
        #expect(waited < .seconds(4), "the runaway checks took \(waited)")

        // Both runaways still run (each far past 0.8 s), yet the pool has
        // its two threads for the other tenant.
        let otherStarted = ContinuousClock.now
        let result = try await context.check(other, with: poller)
        let otherWaited = otherStarted.duration(to: .now)
        // At least: other tests in this process may have runaways of their own.
        #expect(Self.threadsAtLowestPriority() >= 2, "the runaways ended before the other check")
        #expect(result.result == .baseline && result.error == nil)
        #expect(otherWaited < .seconds(2), "the other tenant's check took \(otherWaited)")
        let abandoned = context.logSink.lines.filter { $0.contains("extraction abandoned past its time limit") }
        #expect(abandoned.count == 2, "\(abandoned)")
        #expect(abandoned.allSatisfy { $0.contains("\"extraction.replaced\":\"true\"") }, "\(abandoned)")
        print("runaway checks answered after \(waited); the other tenant's check took \(otherWaited)")
    }

    /// Threads of this process at nice 19: abandoned extractions.
    private static func threadsAtLowestPriority() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return false }
            // The nice value is field 19, the 17th after the name.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 16 && fields[16] == "19"
        }.count
    }
}
