/// Why content could not be extracted. `code` is a short fixed name, safe
/// for logs and metric labels; `message` is the human detail (the selector
/// problem, libxml2's text, the missing pointer token).
public struct ExtractionError: Error, Sendable, CustomStringConvertible {
    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
