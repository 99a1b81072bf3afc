/// Why the server could not start. `code` is short and fixed (safe for logs
/// and metric labels); `detail` says what exactly went wrong.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidConfiguration = "invalid_configuration"
        case invalidHost = "invalid_host"
        case startFailed = "start_failed"
        case alreadyStarted = "already_started"
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String {
        "HTTPServerError(\(code.rawValue)): \(detail)"
    }
}
