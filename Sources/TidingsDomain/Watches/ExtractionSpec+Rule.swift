package import TidingsExtraction

extension ExtractionSpec {
    /// What a watch's rule asks the extractor for; no rule reads the page
    /// as readable text. The poller and the rule preview both use it, so a
    /// preview extracts exactly what a check will.
    package init(rule: ExtractionRule?) {
        guard let rule else {
            self = .readable
            return
        }
        let selector: ExtractionSpec.Selector =
            switch rule.selector {
            case .raw: .raw
            case .css(let css): .css(css)
            case .xpath(let xpath): .xpath(xpath)
            case .jsonPointer(let pointer): .jsonPointer(pointer)
            }
        self.init(selector: selector, ignorePatterns: rule.ignorePatterns)
    }
}
