/// What part of a response to compare, and which volatile parts to drop.
/// This module's own value so it stays independent of the domain; the
/// poller maps a watch's `ExtractionRule` onto it.
package struct ExtractionSpec: Sendable, Equatable {
    package enum Selector: Sendable, Equatable {
        /// The default (decision 0027): HTML as its visible text, JSON as
        /// canonical JSON, anything else as text, line breaks kept.
        case readable
        /// The whole body as UTF-8 text on one line, markup and scripts
        /// included: what every watch without a rule compared before 0027.
        case raw
        case css(String)
        case xpath(String)
        case jsonPointer(String)
    }

    package static let readable = ExtractionSpec(selector: .readable)
    package static let raw = ExtractionSpec(selector: .raw)

    package var selector: Selector
    /// Regular expressions (Swift `Regex` syntax) whose matches are removed
    /// before whitespace is normalized and the text hashed.
    package var ignorePatterns: [String]

    package init(selector: Selector, ignorePatterns: [String] = []) {
        self.selector = selector
        self.ignorePatterns = ignorePatterns
    }
}
