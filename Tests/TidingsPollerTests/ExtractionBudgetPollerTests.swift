import Foundation
import Testing
import TidingsDomain
@testable import TidingsPoller
import TidingsTestSupport

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
        let slowXPath = try context.watch(user: user, url: "\(origin.baseURL)/big", extract: ExtractionRule(selector: .xpath("count(//*//*//*//*)")))
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
        defer { poller.shutdown() }

        #expect(try await eventually(timeout: .seconds(20)) {
            try others.allSatisfy { try context.reload($0).contentHash != nil }
                && context.reload(catastrophicRegex).contentHash != nil
        })
        #expect(try await eventually(timeout: .seconds(20)) { try context.reload(slowXPath).state == .failing })
        let failed = try context.reload(slowXPath)
        #expect(failed.lastError?.hasPrefix("extraction failed: time_limit_exceeded: extraction took longer than 0.3 seconds") == true, "\(failed.lastError ?? "nil")")
        #expect(try context.reload(catastrophicRegex).lastError == nil)
    }

    @Test func catastrophicIgnorePatternsJustWork() async throws {
        let context = try PollerTestContext()
        let text = String(repeating: "a", count: 5_000) + "b"
        let origin = try TestOriginServer { _ in .text(text) }
        let poller = try context.poller()
        defer { poller.shutdown(); origin.stop(); context.close() }
        let rule = ExtractionRule(selector: .css("body"), ignorePatterns: ["(a+)+$", "(a|aa)+c", #"(\w+\s?)*$"#])
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/", extract: rule)
        let result = try await context.check(watch, with: poller)
        #expect(result.result == .baseline)
        #expect(result.error == nil)
    }

    @Test func checkNowGivesUpAtItsDeadlineAndTheCheckIsStillWritten() async throws {
        let context = try PollerTestContext()
        let origin = try TestOriginServer { _ in
            Thread.sleep(forTimeInterval: 2)
            return .text("slow page")
        }
        let poller = try context.poller { $0.checkNowTimeout = .milliseconds(300) }
        defer { poller.shutdown(); origin.stop(); context.close() }
        let watch = try context.watch(user: try context.user(), url: "\(origin.baseURL)/")

        await #expect(throws: CheckNowTimeout.self) {
            try await context.onThread { try poller.checkNow(targetID: watch.targetID) }
        }
        // The check went on and was written as a scheduled one would be.
        #expect(try await eventually { try context.reload(watch).contentHash != nil })
        #expect(try context.reload(watch).lastError == nil)
    }
}
