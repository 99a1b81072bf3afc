import Testing
import TidingsCrypto
import TidingsExtraction

@Suite struct ContentExtractorTests {
    private func page(publishedAt timestamp: String, headline: String = "Version 2.4") -> [UInt8] {
        Array(
            """
            <html><body><p class="clock">Rendered \(timestamp)</p>
            <article class="post"><h1>\(headline)</h1>
            <p>Updated \(timestamp) by the build</p></article></body></html>
            """.utf8)
    }

    @Test func wholeBodyIsNormalizedAndHashed() throws {
        let extracted = try ContentExtractor.extract(body: Array("  abc \n".utf8), contentType: "text/plain")
        #expect(extracted.text == "abc")
        #expect(!extracted.isTruncated)
        // FIPS 180-2 appendix B.1: SHA-256("abc").
        #expect(extracted.hash == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func emptyBodyHashesTheEmptyString() throws {
        let extracted = try ContentExtractor.extract(body: [], contentType: nil)
        #expect(extracted.text.isEmpty)
        #expect(extracted.hash == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func unicodeWhitespaceRunsBecomeOneSpace() {
        #expect(WhitespaceNormalizer.normalize("\u{FEFF}x") == "\u{FEFF}x")
        #expect(WhitespaceNormalizer.normalize(" \t a \n\n b\u{00A0}\u{2003}c\u{3000}\r\n ") == "a b c")
        #expect(WhitespaceNormalizer.normalize("\n \t") == "")
    }

    @Test func layoutOnlyChangesHashEqually() throws {
        let spec = ExtractionSpec(selector: .css("article"))
        let compact = try ContentExtractor.extract(
            body: Array("<article><h1>A</h1> <p>B  C</p></article>".utf8), contentType: "text/html", spec: spec)
        let spread = try ContentExtractor.extract(
            body: Array("<article>\n  <h1>A</h1>\n\n  <p>B\n     C</p>\n</article>".utf8), contentType: "text/html", spec: spec)
        #expect(compact.text == "A\nB C")
        #expect(compact.hash == spread.hash)
        #expect(compact.hash == SHA256.hash("A\nB C").hex)
    }

    @Test func severalMatchesAreSeparated() throws {
        let extracted = try ContentExtractor.extract(
            body: Fixtures.releaseNotes, contentType: "text/html; charset=utf-8", spec: ExtractionSpec(selector: .css("li.change")))
        #expect(extracted.text == "Fixed crash\nDark mode\nFaster sync")
    }

    @Test func xpathScalarsAreExtracted() throws {
        let extracted = try ContentExtractor.extract(
            body: Fixtures.releaseNotes, contentType: nil, spec: ExtractionSpec(selector: .xpath("count(//li)")))
        #expect(extracted.text == "3")
    }

    @Test func ignorePatternsHideVolatileParts() throws {
        let ignoring = ExtractionSpec(selector: .css("article"), ignorePatterns: [#"\d{4}-\d{2}-\d{2} \d{2}:\d{2}"#])
        let morning = try ContentExtractor.extract(body: page(publishedAt: "2026-11-29 10:00"), contentType: "text/html", spec: ignoring)
        let evening = try ContentExtractor.extract(body: page(publishedAt: "2026-11-29 18:30"), contentType: "text/html", spec: ignoring)
        #expect(morning.text == "Version 2.4\nUpdated by the build")
        #expect(morning.hash == evening.hash)

        let released = try ContentExtractor.extract(
            body: page(publishedAt: "2026-11-30 09:00", headline: "Version 2.5"), contentType: "text/html", spec: ignoring)
        #expect(released.hash != morning.hash)

        let noticing = ExtractionSpec(selector: .css("article"))
        let before = try ContentExtractor.extract(body: page(publishedAt: "2026-11-29 10:00"), contentType: "text/html", spec: noticing)
        let after = try ContentExtractor.extract(body: page(publishedAt: "2026-11-29 18:30"), contentType: "text/html", spec: noticing)
        #expect(before.hash != after.hash)
    }

    @Test func selectorIgnoresNoiseOutsideIt() throws {
        let spec = ExtractionSpec(selector: .css("article h1"))
        let first = try ContentExtractor.extract(body: page(publishedAt: "10:00"), contentType: "text/html", spec: spec)
        let second = try ContentExtractor.extract(body: page(publishedAt: "18:30"), contentType: "text/html", spec: spec)
        #expect(first.hash == second.hash)
    }

    @Test func ignorePatternsApplyToWholeBodyAndJSON() throws {
        let wholeBody = try ContentExtractor.extract(
            body: Array("build 12345 ok".utf8), contentType: nil,
            spec: ExtractionSpec(selector: .raw, ignorePatterns: [#"build \d+"#])
        )
        #expect(wholeBody.text == "ok")
        let json = try ContentExtractor.extract(
            body: Array(#"{"v": 1, "generated": "2026-11-29T10:00:00Z"}"#.utf8), contentType: "application/json",
            spec: ExtractionSpec(selector: .jsonPointer(""), ignorePatterns: [#""generated":"[^"]*",?"#])
        )
        #expect(json.text == #"{"v":1}"#)
    }

    @Test func invalidIgnorePatternsAreRejected() throws {
        let error = try #require(throws: ExtractionError.self) {
            try ContentExtractor.extract(
                body: Array("x".utf8), contentType: nil, spec: ExtractionSpec(selector: .raw, ignorePatterns: ["ok", "(unclosed"]))
        }
        #expect(error.code == .invalidIgnorePattern)
        #expect(error.message.contains("pattern 2"))
    }

    @Test func ignorePatternsOnlySeeTheFirstMebibyteOfCharacters() throws {
        let filler = String(repeating: "x", count: 1 << 20)
        let body = Array(("SECRET " + filler + " SECRET").utf8)
        // The scope is what is tested, not time: a debug build at load 10
        // took more than the default 2 s to scan the mebibyte.
        var limits = ExtractionLimits()
        limits.timeLimit = .seconds(60)
        let extracted = try ContentExtractor.extract(
            body: body, contentType: nil, spec: ExtractionSpec(selector: .raw, ignorePatterns: ["SECRET"]), limits: limits)
        // The first match is in scope and removed; the one past it is kept.
        #expect(extracted.hash == SHA256.hash(filler + " SECRET").hex)
    }

    @Test func snapshotIsCappedOnACharacterBoundaryButHashCoversAll() throws {
        let text = String(repeating: "é", count: 40_000) // 80,000 UTF-8 bytes
        let extracted = try ContentExtractor.extract(body: Array(text.utf8), contentType: nil)
        #expect(extracted.isTruncated)
        #expect(extracted.text.utf8.count == ContentExtractor.snapshotByteLimit)
        #expect(extracted.text.allSatisfy { $0 == "é" })
        #expect(extracted.hash == SHA256.hash(text).hex)
    }

    @Test func invalidUTF8IsReplacedInWholeBody() throws {
        let extracted = try ContentExtractor.extract(body: [0x61, 0xff, 0x62], contentType: "text/plain; charset=utf-8")
        #expect(extracted.text == "a\u{FFFD}b")
    }
}
