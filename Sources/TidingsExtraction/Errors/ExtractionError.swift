/// Why content could not be extracted. `code` is a short fixed name, safe
/// for logs and metric labels; `message` is the human detail (the selector
/// problem, libxml2's text, the missing pointer token).
package struct ExtractionError: Error, Sendable, CustomStringConvertible {
    package var code: Code
    package var message: String

    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code): \(message)" }
}

extension ExtractionError {
    /// The one wording of a time limit passed, whether the extraction
    /// stopped itself or its caller stopped waiting; `activity` says what
    /// was running ("evaluating XPath").
    package static func timeLimitExceeded(_ limit: Duration, during activity: String) -> ExtractionError {
        ExtractionError(code: .timeLimitExceeded, message: "extraction took longer than \(limit) (\(activity))")
    }
}
