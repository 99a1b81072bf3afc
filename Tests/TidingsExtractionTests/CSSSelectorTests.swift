import Testing
import TidingsExtraction

@Suite struct CSSSelectorTests {
    @Test(arguments: [
        ("title", ["Release notes"]),
        ("TITLE", ["Release notes"]),
        ("#top a", ["Acme"]),
        ("#top", ["Acme"]),
        ("li.change", ["Fixed crash", "Dark mode", "Faster sync"]),
        ("li.feature.new", ["Dark mode"]),
        (".new", ["Dark mode"]),
        ("article.featured h1", ["Version 2.4"]),
        ("a[title]", ["link"]),
        ("[href='/']", ["Acme"]),
        ("a[href=\"https://example.com/a?b=1\"]", ["link"]),
        ("article[data-kind=release] .title", ["Version 2.4"]),
        ("article[ data-kind = 'blog' ] h1.title", ["Hello"]),
        ("ul.changes > *", ["Fixed crash", "Dark mode", "Faster sync"]),
        ("div.body p", ["Intro bold", "Nested paragraph"]),
        ("div.body > p", ["Intro bold"]),
        ("div.body>section>p", ["Nested paragraph"]),
        ("main > h1", []),
        ("h1, footer p", ["Version 2.4", "Hello", "Footer text"]),
        ("footer p ,#top a", ["Acme", "Footer text"]),
    ])
    func selectsTextInDocumentOrder(selector: String, expected: [String]) throws {
        #expect(try Fixtures.document().css(selector) == expected)
    }

    @Test(arguments: ["table", ".feat", "#TOP", "li.change.missing", "[data-kind=Release]", "header > p"])
    func selectorsWithoutMatchesGiveNothing(selector: String) throws {
        #expect(try Fixtures.document().css(selector).isEmpty)
    }

    @Test func classMatchesWholeTokensOnly() throws {
        let document = try HTMLDocument(bytes: Array("<p class=\"newer\">a</p><p class=\" x  new\t\">b</p>".utf8))
        #expect(try document.css(".new") == ["b"])
    }

    @Test(arguments: [
        ("a:hover", "':hover'"),
        ("li:nth-child(2)", "':nth-child(2)'"),
        ("p::before", "'::before'"),
        ("li ~ li", "'~'"),
        ("li + li", "'+'"),
        ("h1~p", "'~'"),
        ("[href^=http]", "'^='"),
        ("[class*=new]", "'*='"),
        ("[lang|=en]", "'|='"),
        ("svg|rect", "namespace"),
        (#"#a\:b"#, "escape"),
    ])
    func unsupportedSyntaxIsRejectedByName(selector: String, construct: String) throws {
        let error = try #require(throws: ExtractionError.self) { try CSSSelectorTranslator.xpath(for: selector) }
        #expect(error.code == .unsupportedSelector)
        #expect(error.message.contains(construct))
        #expect(error.message.contains("supported subset"))
    }

    @Test(arguments: ["", "  ", "div >", "> p", "a,", ",a", "[", "[href", "[href=]", "[href='x]", ".", "#", "a..b", "p)"])
    func malformedSelectorsAreRejected(selector: String) throws {
        let error = try #require(throws: ExtractionError.self) { try CSSSelectorTranslator.xpath(for: selector) }
        #expect(error.code == .invalidSelector)
    }

    @Test func translationIsPlainXPath() throws {
        #expect(
            try CSSSelectorTranslator.xpath(for: "div#main > p.note[lang=en], a")
                == "//div[@id='main']/p[contains(concat(' ', normalize-space(@class), ' '), ' note ')][@lang='en'] | //a")
    }

    @Test func valuesWithQuotesBecomeValidLiterals() throws {
        let document = try HTMLDocument(bytes: Array(#"<a title="It's">one</a><a title='say "hi"'>two</a>"#.utf8))
        #expect(try document.css(#"a[title="It's"]"#) == ["one"])
        #expect(try document.css(#"a[title='say "hi"']"#) == ["two"])
        let translated = try CSSSelectorTranslator.xpath(for: #"a[title="It's"]"#)
        #expect(translated == #"//a[@title="It's"]"#)
    }

    /// By `Character`, a prepended concatenation mark before `'`
    /// (`\u{600}'`) or a combining mark after it is one `Character` with
    /// it, so the value was quoted with `'` and its own quotes ended the
    /// literal: the selector below became `'a\u{600}' or '1\u{600}'='1\u{600}'`,
    /// which matched every `a` with a title.
    @Test func aMarkNextToAQuoteDoesNotHideIt() throws {
        let selector = "a[title=\"a\u{600}' or '1\u{600}'='1\u{600}\"]"
        #expect(try CSSSelectorTranslator.xpath(for: selector) == "//a[@title=\"a\u{600}' or '1\u{600}'='1\u{600}\"]")
        let document = try HTMLDocument(bytes: Array("<a title=\"x\">one</a><a title=\"a\u{600}' or '1\u{600}'='1\u{600}\">two</a>".utf8))
        #expect(try document.css(selector) == ["two"])
        #expect(try CSSSelectorTranslator.xpath(for: "a[title=\"b'\u{301}\"]") == "//a[@title=\"b'\u{301}\"]")
    }
}
