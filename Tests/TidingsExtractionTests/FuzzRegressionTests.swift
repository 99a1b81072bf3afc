import Testing
import TidingsExtraction

/// Inputs the fuzz targets found (docs/FUZZING.md); each is also a file in
/// Fuzz/corpus so the fuzzer starts from it.
@Suite struct FuzzRegressionTests {
    /// css-selector: invalid UTF-8 repaired to U+FFFD was taken for a name
    /// character, and the translation was an XPath expression libxml2
    /// refuses ("invalid_xpath" for a selector mistake).
    @Test func nameCharactersLibxml2RefusesAreAnInvalidSelector() throws {
        let selector = String(decoding: [0x6C, 0x69, 0xFF, 0xFF, 0x69] as [UInt8], as: UTF8.self)
        do {
            _ = try CSSSelectorTranslator.xpath(for: selector)
            Issue.record("\(selector.debugDescription) was translated")
        } catch let error as ExtractionError {
            #expect(error.code == .invalidSelector)
        } catch {
            Issue.record("not an ExtractionError: \(error)")
        }
        #expect(try HTMLDocument(bytes: Array("<p class='é'>x</p>".utf8)).css("p.é") == ["x"])
    }

    /// css-selector (found-control-in-value): a control character in a
    /// quoted attribute value went into the XPath literal, which libxml2
    /// refuses.
    @Test(arguments: ["h4#put[type=text] [da-x='a\u{14}b']", "[a=\"\u{0}\"]", "[a='\u{FFFE}']"])
    func charactersXMLRefusesInAttributeValuesAreAnInvalidSelector(selector: String) {
        do {
            _ = try CSSSelectorTranslator.xpath(for: selector)
            Issue.record("\(selector.debugDescription) was translated")
        } catch let error as ExtractionError {
            #expect(error.code == .invalidSelector)
        } catch {
            Issue.record("not an ExtractionError: \(error)")
        }
        #expect(throws: Never.self) { try CSSSelectorTranslator.xpath(for: "[a='tab\there']") }
    }
}
