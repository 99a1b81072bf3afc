import Glibc
import Testing
import TidingsExtraction
import TidingsSynchronization

/// Hostile pages and rules: every limit fails the extraction with its
/// own code instead of running for minutes or filling memory.
struct ExtractionBudgetTests {
    /// `count` blocks of `<div><p>x</p></div>`: three nodes each.
    private func flatPage(_ count: Int) -> [UInt8] {
        Array(("<html><body>" + String(repeating: "<div><p>x</p></div>", count: count) + "</body></html>").utf8)
    }

    @Test func xpathOperationLimitStopsEvaluation() throws {
        var limits = ExtractionLimits()
        limits.xpathOperationLimit = 10_000
        let error = try #require(throws: ExtractionError.self) {
            try ContentExtractor.extract(
                body: flatPage(5_000), contentType: "text/html", spec: ExtractionSpec(selector: .xpath("count(//div//p)")), limits: limits)
        }
        #expect(error.code == .operationLimitExceeded)
        #expect(error.message == "XPath evaluation needed more than 10000 operations")
    }

    @Test func deadlineInterruptsXPathThatOperationCountsMiss() throws {
        // libxml2 merges the node sets of each step by comparing pairs of
        // nodes without counting: 60,000 nodes take seconds to minutes.
        var limits = ExtractionLimits()
        limits.timeLimit = .milliseconds(200)
        let started = ContinuousClock.now
        let error = try #require(throws: ExtractionError.self) {
            try ContentExtractor.extract(
                body: flatPage(20_000), contentType: "text/html", spec: ExtractionSpec(selector: .xpath("count(//*//*//*//*)")),
                limits: limits)
        }
        #expect(error.code == .timeLimitExceeded)
        #expect(error.message.contains("XPath") || error.message.contains("parsing HTML"), "\(error)")
        // Generous: the point is seconds, not the minutes the merge takes.
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    /// One watchdog thread serves every evaluation in the process: an
    /// evaluation armed with an earlier deadline while it sleeps toward a
    /// later one must wake it, and each is interrupted at its own.
    @Test func concurrentEvaluationsAreInterruptedAtTheirOwnDeadlines() throws {
        // Quadratic in node visits, which libxml2 counts: an interrupt
        // takes effect at once (node-set merges, which it does not count,
        // can delay one by seconds).
        @Sendable func hostileExtraction(timeLimit: Duration) -> (error: ExtractionError?, elapsed: Duration) {
            var limits = ExtractionLimits()
            limits.timeLimit = timeLimit
            limits.xpathOperationLimit = 1 << 50
            let started = ContinuousClock.now
            do {
                _ = try ContentExtractor.extract(
                    body: flatPage(7_000), contentType: "text/html", spec: ExtractionSpec(selector: .xpath("count(//*[count(//*) > 0])")),
                    limits: limits)
                return (nil, ContinuousClock.now - started)
            } catch {
                return (error as? ExtractionError, ContinuousClock.now - started)
            }
        }
        // Threads of their own: Dispatch's two workers on this machine
        // may be busy with other tests, which would run these one after
        // the other.
        let results = AdaptiveMutex<[String: (error: ExtractionError?, elapsed: Duration)]>([:])
        let longThread = JoinableThread.start(name: "test.long-xpath") {
            let result = hostileExtraction(timeLimit: .seconds(8))
            results.withLock { $0["long"] = result }
        }
        // Armed while the watchdog waits for the first one's deadline: the
        // watchdog shows no sign of waiting, so a fixed head start.
        usleep(100_000)
        let shortThread = JoinableThread.start(name: "test.short-xpath") {
            let result = hostileExtraction(timeLimit: .milliseconds(200))
            results.withLock { $0["short"] = result }
        }
        longThread.join()
        shortThread.join()
        let (short, long) = try results.withLock { (try #require($0["short"]), try #require($0["long"])) }
        #expect(short.error?.code == .timeLimitExceeded, "\(String(describing: short.error))")
        // Far from the long deadline: the short one did not wait for it.
        #expect(short.elapsed < .seconds(5), "\(short.elapsed): \(String(describing: short.error))")
        // The long one finished (a fast machine) or was stopped at its
        // own deadline, not at the short one's.
        if let error = long.error {
            #expect(error.code == .timeLimitExceeded, "\(error)")
            #expect(long.elapsed >= .seconds(8), "\(long.elapsed)")
        }
    }

    @Test func cssSelectorsShareTheBudget() throws {
        var limits = ExtractionLimits()
        limits.xpathOperationLimit = 1_000
        let error = try #require(throws: ExtractionError.self) {
            try ContentExtractor.extract(
                body: flatPage(2_000), contentType: "text/html", spec: ExtractionSpec(selector: .css("div p")), limits: limits)
        }
        #expect(error.code == .operationLimitExceeded, "\(error)")
    }

    @Test func pagesWithTooManyNodesAreRefused() throws {
        var limits = ExtractionLimits()
        limits.documentNodeLimit = 1_000
        let error = try #require(throws: ExtractionError.self) {
            try ContentExtractor.extract(
                body: flatPage(400), contentType: "text/html", spec: ExtractionSpec(selector: .css("p")), limits: limits)
        }
        #expect(error.code == .tooManyNodes)
        #expect(error.message == "the page has more than 1000 nodes, the most CSS and XPath rules work on")
        // Under the limit the same page extracts.
        limits.documentNodeLimit = 2_000
        #expect(
            try ContentExtractor.extract(
                body: flatPage(400), contentType: "text/html", spec: ExtractionSpec(selector: .css("p")), limits: limits
            ).hash.count == 64)
    }

    /// libxml2 compares each attribute of a start tag with every earlier
    /// one: one tag of 50,000 attributes (340 KB) parsed for 30 s in one
    /// call, 20,000 for about 5 s. The parser reads the page a kilobyte at a
    /// time and stops at the deadline, far from the 30 s.
    @Test func aStartTagOfTensOfThousandsOfAttributesStopsAtTheDeadline() throws {
        let page = "<html><body><p" + (0..<50_000).map { " a\($0)" }.joined() + ">x</p></body></html>"
        var limits = ExtractionLimits()
        limits.timeLimit = .milliseconds(200)
        let started = ContinuousClock.now
        let error = try #require(throws: ExtractionError.self) {
            try ContentExtractor.extract(
                body: Array(page.utf8), contentType: "text/html", spec: ExtractionSpec(selector: .css("p")), limits: limits)
        }
        let elapsed = ContinuousClock.now - started
        #expect(error.code == .timeLimitExceeded, "\(error)")
        #expect(error.message.contains("parsing HTML"), "\(error)")
        #expect(elapsed < .seconds(10), "parsing went on for \(elapsed)")
    }

    /// Attribute nodes are what `//@*` selects, and sets of them merge as
    /// slowly as sets of elements: they count towards the node limit.
    @Test func attributesCountTowardsTheNodeLimit() throws {
        let page = Array(("<html><body><p" + (0..<1_500).map { " a\($0)" }.joined() + ">x</p></body></html>").utf8)
        var limits = ExtractionLimits()
        limits.documentNodeLimit = 1_000
        let error = try #require(throws: ExtractionError.self) {
            try ContentExtractor.extract(
                body: page, contentType: "text/html", spec: ExtractionSpec(selector: .xpath("count(//@* | //@*)")), limits: limits)
        }
        #expect(error.code == .tooManyNodes)
        limits.documentNodeLimit = 2_000
        let counted = try ContentExtractor.extract(
            body: page, contentType: "text/html", spec: ExtractionSpec(selector: .xpath("count(//@*)")), limits: limits)
        #expect(counted.text == "1500")
    }

    @Test func nestedMatchesCannotMultiplyTextWithoutBound() throws {
        // Every <div> matches and repeats the 100 KB inside it: 200 levels
        // (libxml2 drops what lies deeper than 256) are 20 MB of text.
        let depth = 200
        let page =
            String(repeating: "<div>", count: depth) + String(repeating: "y", count: 100_000) + String(repeating: "</div>", count: depth)
        // The text limit is what is tested: time enough that a loaded
        // machine does not hit the time limit first.
        var limits = ExtractionLimits()
        limits.timeLimit = .seconds(60)
        let error = try #require(throws: ExtractionError.self) {
            try ContentExtractor.extract(
                body: Array(page.utf8), contentType: "text/html", spec: ExtractionSpec(selector: .xpath("//div")), limits: limits)
        }
        #expect(error.code == .textTooLarge)
        #expect(error.message == "the selected text is larger than \(16 << 20) bytes")
    }

    @Test func deepNestingIsCutByLibXML2() throws {
        let depth = 100_000
        let page = String(repeating: "<div>", count: depth) + String(repeating: "</div>", count: depth)
        let extracted = try ContentExtractor.extract(
            body: Array(page.utf8), contentType: "text/html", spec: ExtractionSpec(selector: .xpath("count(//div)")))
        let count = try #require(Int(extracted.text))
        #expect(count <= 256)
    }

    @Test func normalRulesStayWellWithinTheDefaults() throws {
        let page = flatPage(5_000)
        for spec in [ExtractionSpec(selector: .css("div p")), ExtractionSpec(selector: .xpath("//div/p"), ignorePatterns: [#"x+"#])] {
            _ = try ContentExtractor.extract(body: page, contentType: "text/html", spec: spec)
        }
    }
}
