import Testing
import TidingsExtraction

@Suite struct XPathTests {
    @Test(arguments: [
        ("//h1", ["Version 2.4", "Hello"]),
        ("//li[contains(@class, 'fix')]", ["Fixed crash"]),
        ("//a/@href", ["/", "https://example.com/a?b=1"]),
        ("string(//p[@class='date'])", ["Published 2026-11-29 10:00"]),
        ("normalize-space(//div[@class='body'])", ["Intro boldNested paragraph"]),
        ("count(//li)", ["3"]),
        ("count(//li) div 2", ["1.5"]),
        ("count(//li) > 2", ["true"]),
        ("boolean(//table)", ["false"]),
        ("0 div 0", ["NaN"]),
        ("//table", []),
    ])
    func evaluatesNodeSetsAndScalars(expression: String, expected: [String]) throws {
        #expect(try Fixtures.document().xpath(expression) == expected)
    }

    @Test(arguments: ["//[", "count(", "//p[@class=", "unknown-function(1)"])
    func invalidExpressionsThrowWithLibXML2Detail(expression: String) throws {
        let error = try #require(throws: ExtractionError.self) { try Fixtures.document().xpath(expression) }
        #expect(error.code == .invalidXPath)
        #expect(error.message.contains(expression))
    }
}
