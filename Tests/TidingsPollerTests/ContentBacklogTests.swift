import Foundation
import Testing
import TidingsDomain
import TidingsSynchronization
import TidingsTestSupport

@testable import TidingsPoller

/// The bounds on content waiting to be written: the scheduler claims no
/// more past `writeBacklogBytes`, and the writer splits eventful batches
/// into transactions of `eventfulTransactionBytes`. Neither may lose,
/// repeat or stall a check.
@Suite(.serialized) struct ContentBacklogTests {
    @Test func baselinesOverBothByteLimitsAreEachWrittenOnce() async throws {
        let context = try PollerTestContext()
        let script = OriginScript()
        let origin = try TestOriginServer { request in
            script.record(request)
            return .text("page \(request.path) " + String(repeating: "some words of content ", count: 100))
        }
        defer { origin.stop(); context.close() }
        let user = try context.user()
        let count = 30
        var watches: [Watch] = []
        for index in 0..<count {
            watches.append(try context.watch(user: user, url: "\(origin.baseURL)/\(index)", interval: 3600))
        }
        // Every result is over both limits: claims wait for each batch to be
        // written, and each target is its own eventful transaction.
        let poller = try context.poller(concurrency: 8) {
            $0.hostConcurrency = 8
            $0.writeBacklogBytes = 1
            $0.eventfulTransactionBytes = 1
        }
        defer { poller.stop() }

        #expect(
            try await eventually {
                try watches.allSatisfy { try context.reload($0).lastCheckResult == .baseline }
            })
        #expect(script.requests.count == count)
        #expect(Set(script.requests.map(\.path)).count == count)
        let hashes = try watches.map { try #require(context.reload($0).contentHash) }
        #expect(Set(hashes).count == count)
        #expect(try watches.allSatisfy { try context.changeCount(of: $0) == 0 })
    }
}
