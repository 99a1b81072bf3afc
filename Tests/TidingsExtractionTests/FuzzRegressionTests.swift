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

    /// css-selector (lowered-out-of-names): `Ӏ` (U+04C0) is a name
    /// character, but Unicode lowering made it U+04CF, which libxml2's XPath
    /// parser refuses. Names are lowered in ASCII only, as libxml2's HTML
    /// parser lowers them.
    @Test func namesAreLoweredInASCIIOnly() throws {
        #expect(try CSSSelectorTranslator.xpath(for: "\u{4C0}") == "//\u{4C0}")
        #expect(try CSSSelectorTranslator.xpath(for: "DIV[DATA-İ]") == "//div[@data-İ]")
        let document = try HTMLDocument(bytes: Array("<P Class='A'>x</P>".utf8))
        #expect(try document.css("p.A") == ["x"])
        #expect(try document.css("P[CLASS=A]") == ["x"])
        #expect(try document.xpath(CSSSelectorTranslator.xpath(for: "\u{4C0}")).isEmpty)
    }

    /// json-value: a Double with an integral value (from `1e2` or
    /// `92233720354775807.9`) was written as `9.22337203547758e+16`, which read
    /// back as an Int64 and changed the canonical text (and so the hash).
    @Test func integralNumbersAreIntegersWhateverTheirSpelling() throws {
        let spellings = try JSONValue(parsing: Array("[1e2,100.0,-0,5e15,1e308,0.5]".utf8))
        #expect(spellings.canonicalJSON == "[100,100,0,5000000000000000,1e+308,0.5]")

        let found = try JSONValue(parsing: Array("[92233720354775807.9223368547,0.08,-0,1e308,0.1]".utf8))
        let again = try JSONValue(parsing: Array(found.canonicalJSON.utf8))
        #expect(again == found)
        #expect(again.canonicalJSON == found.canonicalJSON)
    }
}
