/// What part of a response to compare, and which volatile parts to drop.
/// This module's own value so it stays independent of the domain; the
/// poller maps a watch's `ExtractionRule` onto it.
package struct ExtractionSpec: Sendable, Equatable {
    package enum Selector: Sendable, Equatable {
        /// The body as UTF-8 text.
        case wholeBody
        case css(String)
        case xpath(String)
        case jsonPointer(String)
    }

    package static let wholeBody = ExtractionSpec(selector: .wholeBody)

    package var selector: Selector
    /// Regular expressions (Swift `Regex` syntax) whose matches are removed
    /// before whitespace is normalized and the text hashed.
    package var ignorePatterns: [String]

    package init(selector: Selector, ignorePatterns: [String] = []) {
        self.selector = selector
        self.ignorePatterns = ignorePatterns
    }
}
