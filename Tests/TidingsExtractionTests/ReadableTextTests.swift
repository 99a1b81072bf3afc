import Testing
import TidingsCrypto

@testable import TidingsExtraction

/// The default comparison (decision 0027): a page's visible text, JSON as
/// canonical JSON, text as text, line breaks kept.
@Suite struct ReadableTextTests {
    private func readable(_ html: String, contentType: String? = "text/html") throws -> ExtractedContent {
        try ContentExtractor.extract(body: Array(html.utf8), contentType: contentType)
    }

    @Test func scriptsStylesTemplatesAndCommentsAreNotText() throws {
        let page = try readable(
            """
            <html><head><title>Shop</title><style>p { color: red }</style>
            <script>window.track("a1b2c3", 1733100000)</script></head>
            <body><!-- build 42 --><noscript>Enable JavaScript</noscript>
            <template><p>Later</p></template><p>Price: 10 EUR</p>
            <script type="application/ld+json">{"x": 1}</script></body></html>
            """)
        #expect(page.text == "Shop\nPrice: 10 EUR")
    }

    @Test func aTrackingScriptChangeKeepsTheHash() throws {
        let before = try readable("<body><p>Stable</p><script>var nonce = 'a1';</script></body>")
        let after = try readable("<body><p>Stable</p><script>var nonce = 'b2'; track();</script></body>")
        #expect(before.hash == after.hash)
        let raw = { (html: String) in try ContentExtractor.extract(body: Array(html.utf8), contentType: "text/html", spec: .raw) }
        #expect(
            try raw("<body><p>Stable</p><script>var nonce = 'a1';</script></body>").hash
                != raw("<body><p>Stable</p><script>var nonce = 'b2'; track();</script></body>").hash)
    }

    @Test func blockElementsBreakLinesAndInlineOnesDoNot() throws {
        let page = try readable(
            """
            <div>One <b>bold</b> <a href="/">link</a></div><p>Two<br>Three</p>
            <ul><li>Four</li><li>Five</li></ul><table><tr><td>Six</td><td>Seven</td></tr></table>
            <h2>Eight</h2><span>Nine</span><span>Ten</span>
            """)
        #expect(page.text == "One bold link\nTwo\nThree\nFour\nFive\nSix Seven\nEight\nNineTen")
    }

    @Test func sourceLineBreaksAreSpacesButPreKeepsThem() throws {
        let page = try readable("<p>A long\n   sentence\twrapped</p><pre>line 1\n  line 2</pre><p>after</p>")
        #expect(page.text == "A long sentence wrapped\nline 1\nline 2\nafter")
    }

    @Test func entitiesAreDecoded() throws {
        let page = try readable("<p>Fish &amp; chips &lt;3 &eacute;t&#233; &nbsp;x&#x2713;</p>")
        #expect(page.text == "Fish & chips <3 été x✓")
    }

    @Test func nestedBlocksGiveNoBlankLines() throws {
        let page = try readable("<div><div><section><p>A</p></section></div><div></div><div><p>B</p></div></div>")
        #expect(page.text == "A\nB")
    }

    @Test func malformedMarkupIsRepaired() throws {
        let page = try readable("<p>One<p>Two <b>bold <i>both</b> italic?<div>Three</span></p><script>x = '</p>'")
        #expect(page.text.hasPrefix("One\nTwo bold both italic?\nThree"))
        #expect(!page.text.contains("x = "))
    }

    @Test func charsetFromTheHeaderAndFromMeta() throws {
        let latin1: [UInt8] = Array("<p>Gr".utf8) + [0xfc, 0xdf] + Array("e</p>".utf8)
        let fromHeader = try ContentExtractor.extract(body: latin1, contentType: "text/html; charset=iso-8859-1")
        #expect(fromHeader.text == "Grüße")
        let fromMeta = try ContentExtractor.extract(
            body: Array(#"<meta charset="windows-1252"><p>"#.utf8) + [0xe9, 0x74, 0xe9] + Array("</p>".utf8), contentType: "text/html")
        #expect(fromMeta.text == "été")
    }

    @Test func htmlIsSniffedWithoutAContentType() throws {
        #expect(try readable("\u{FEFF}  <!DOCTYPE html><p>Hi</p><script>x()</script>", contentType: nil).text == "Hi")
        #expect(try readable("<HTML><body>Hi<style>a{}</style></body></HTML>", contentType: "application/octet-stream").text == "Hi")
        // Declared as text, it is text: markup and all.
        #expect(try readable("<p>Hi</p>", contentType: "text/plain").text == "<p>Hi</p>")
    }

    @Test func jsonComparesAsCanonicalJSON() throws {
        let first = try readable(#"{"b": [1, 2], "a": {"y": true, "x": null}}"#, contentType: "application/json; charset=utf-8")
        let second = try readable("{\"a\":{\"x\":null,\"y\":true},\n \"b\":[1,2]}", contentType: "application/problem+json")
        #expect(first.text == #"{"a":{"x":null,"y":true},"b":[1,2]}"#)
        #expect(first.hash == second.hash)
        #expect(try readable(#"[{"k":1}]"#, contentType: nil).text == #"[{"k":1}]"#)
        // Not JSON after all: compared as its text.
        #expect(try readable("{not json\n  at all", contentType: "application/json").text == "{not json\nat all")
    }

    @Test func plainTextKeepsItsLines() throws {
        let text = try readable("  first   line \r\n\r\n\tsecond\u{2028}third  ", contentType: "text/plain")
        #expect(text.text == "first line\nsecond\nthird")
        #expect(text.hash == SHA256.hash("first line\nsecond\nthird").hex)
    }

    @Test func lineNormalizationIsIdempotent() {
        for input in ["", "\n\n", " a \n\n b ", "a\u{00A0}\u{3000}b\r\nc", "\u{85}x\u{2029}"] {
            let once = WhitespaceNormalizer.normalizeLines(input)
            #expect(WhitespaceNormalizer.normalizeLines(once) == once)
            #expect(!once.contains("\n\n") && !once.hasPrefix("\n") && !once.hasSuffix("\n") && !once.hasPrefix(" "))
        }
    }

    @Test func selectedElementsReadAsVisibleText() throws {
        let spec = ExtractionSpec(selector: .css("article"))
        let page = "<article><h1>Title</h1><script>track(1)</script><p>Body <em>text</em></p></article>"
        let extracted = try ContentExtractor.extract(body: Array(page.utf8), contentType: "text/html", spec: spec)
        #expect(extracted.text == "Title\nBody text")
        // Attributes and text nodes keep their plain value.
        let href = try ContentExtractor.extract(
            body: Array(#"<a href="/x?y=1">l</a>"#.utf8), contentType: "text/html", spec: ExtractionSpec(selector: .xpath("//a/@href")))
        #expect(href.text == "/x?y=1")
    }

    @Test func rulesOfOneResponseShareOneParse() throws {
        let response = ResponseContent(body: Fixtures.releaseNotes, contentType: "text/html")
        let title = try ContentExtractor.extract(from: response, spec: ExtractionSpec(selector: .css("h1.title")))
        let count = try ContentExtractor.extract(from: response, spec: ExtractionSpec(selector: .xpath("count(//li)")))
        let whole = try ContentExtractor.extract(from: response, spec: .readable)
        #expect(title.text == "Version 2.4\nHello")
        #expect(count.text == "3")
        #expect(whole.text.hasPrefix("Release notes\nAcme\nVersion 2.4\nPublished 2026-11-29 10:00\nFixed crash"))
        #expect(whole.hash == (try ContentExtractor.extract(body: Fixtures.releaseNotes, contentType: "text/html")).hash)
    }

    /// Readable text walks the tree once in linear time, so the node limit
    /// of XPath rules does not apply to it; time and text limits do.
    @Test func largePagesStayWithinTheBudget() throws {
        let page = Array(("<html><body>" + String(repeating: "<p>word <b>bold</b></p>", count: 60_000) + "</body></html>").utf8)
        var limits = ExtractionLimits()
        limits.documentNodeLimit = 1_000
        // What is measured is nodes and text, not time: a debug build on a
        // loaded machine took more than the default 2 s for this walk.
        limits.timeLimit = .seconds(60)
        let extracted = try ContentExtractor.extract(body: page, contentType: "text/html", spec: .readable, limits: limits)
        #expect(extracted.isTruncated)
        #expect(extracted.text.hasPrefix("word bold\nword bold\n"))

        limits.textByteLimit = 100_000
        let tooLarge = try #require(throws: ExtractionError.self) {
            try ContentExtractor.extract(body: page, contentType: "text/html", spec: .readable, limits: limits)
        }
        #expect(tooLarge.code == .textTooLarge)

        limits = ExtractionLimits()
        limits.timeLimit = .zero
        let late = try #require(throws: ExtractionError.self) {
            try ContentExtractor.extract(body: page, contentType: "text/html", spec: .readable, limits: limits)
        }
        #expect(late.code == .timeLimitExceeded)
    }

    @Test func deepNestingIsWalkedWithoutRecursion() throws {
        let depth = 100_000
        let page = String(repeating: "<div><span>", count: depth) + "deep" + String(repeating: "</span></div>", count: depth)
        let extracted = try ContentExtractor.extract(body: Array(page.utf8), contentType: "text/html")
        // libxml2 drops elements below 256 levels; what it keeps is walked.
        #expect(!extracted.text.contains("\n\n"))
    }
}
