extension ExtractionError {
    /// The kind of failure, open for new cases without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        private init(_ description: String) {
            self.description = description
        }

        /// The CSS selector is not well-formed.
        public static let invalidSelector = Code("invalid_selector")
        /// The CSS selector uses syntax outside the supported subset.
        public static let unsupportedSelector = Code("unsupported_selector")
        /// libxml2 rejected the XPath expression.
        public static let invalidXPath = Code("invalid_xpath")
        /// libxml2 could not build a document from the body.
        public static let unparsableHTML = Code("unparsable_html")
        /// The body is larger than libxml2 can take in one call (2 GiB).
        public static let documentTooLarge = Code("document_too_large")
        public static let invalidJSON = Code("invalid_json")
        public static let invalidJSONPointer = Code("invalid_json_pointer")
        /// The pointer is well-formed but names nothing in the document.
        public static let jsonPointerNotFound = Code("json_pointer_not_found")
        public static let invalidIgnorePattern = Code("invalid_ignore_pattern")
        /// The extraction ran past `ExtractionLimits.timeLimit`.
        public static let timeLimitExceeded = Code("time_limit_exceeded")
        /// An XPath evaluation or an ignore pattern ran past its count of
        /// operations.
        public static let operationLimitExceeded = Code("operation_limit_exceeded")
        /// The parsed page has more nodes than CSS and XPath may work on.
        public static let tooManyNodes = Code("too_many_nodes")
        /// The selected text is larger than `ExtractionLimits.textByteLimit`.
        public static let textTooLarge = Code("text_too_large")
    }
}
