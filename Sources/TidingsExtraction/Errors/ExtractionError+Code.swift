extension ExtractionError {
    /// The kind of failure, open for new cases without breaking callers.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let description: String

        private init(_ description: String) {
            self.description = description
        }

        /// The CSS selector is not well-formed.
        package static let invalidSelector = Code("invalid_selector")
        /// The CSS selector uses syntax outside the supported subset.
        package static let unsupportedSelector = Code("unsupported_selector")
        /// libxml2 rejected the XPath expression.
        package static let invalidXPath = Code("invalid_xpath")
        /// libxml2 could not build a document from the body.
        package static let unparsableHTML = Code("unparsable_html")
        /// The body is larger than libxml2 can take in one call (2 GiB).
        package static let documentTooLarge = Code("document_too_large")
        package static let invalidJSON = Code("invalid_json")
        package static let invalidJSONPointer = Code("invalid_json_pointer")
        /// The pointer is well-formed but names nothing in the document.
        package static let jsonPointerNotFound = Code("json_pointer_not_found")
        package static let invalidIgnorePattern = Code("invalid_ignore_pattern")
        /// The extraction ran past `ExtractionLimits.timeLimit`.
        package static let timeLimitExceeded = Code("time_limit_exceeded")
        /// An XPath evaluation or an ignore pattern ran past its count of
        /// operations.
        package static let operationLimitExceeded = Code("operation_limit_exceeded")
        /// The parsed page has more nodes than CSS and XPath may work on.
        package static let tooManyNodes = Code("too_many_nodes")
        /// The selected text is larger than `ExtractionLimits.textByteLimit`.
        package static let textTooLarge = Code("text_too_large")
    }
}
