import TidingsExtraction

/// CSS selectors of extraction rules. Any selector is translated or
/// rejected with an ExtractionError; a translation is an XPath expression
/// libxml2 accepts.
enum CSSSelectorTarget {
    static let html = Array(
        "<html><body><div id='a' class='x y'><p lang=\"en\">one</p><a href='/'>two</a></div></body></html>".utf8
    )

    static func run(_ input: FuzzInput) {
        let selector = input.string
        let xpath: String
        do {
            xpath = try CSSSelectorTranslator.xpath(for: selector)
        } catch let error as ExtractionError {
            check(error.code == .invalidSelector || error.code == .unsupportedSelector, "\(selector.debugDescription): \(error)")
            return
        } catch {
            check(false, "\(selector.debugDescription): not an ExtractionError: \(error)")
            return
        }
        do {
            // A document per input: its extraction budget (time included)
            // runs from its creation.
            _ = try HTMLDocument(bytes: html).xpath(xpath)
        } catch {
            check(false, "\(selector.debugDescription) -> \(xpath.debugDescription), which libxml2 refuses: \(error)")
        }
    }
}
