/// Why the server could not start. `code` is short and fixed (safe for logs
/// and metric labels); `detail` says what exactly went wrong.
package struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        case invalidConfiguration = "invalid_configuration"
        case invalidHost = "invalid_host"
        case startFailed = "start_failed"
        case alreadyStarted = "already_started"
    }

    package var code: Code
    package var detail: String

    package init(_ code: Code, detail: String) {
        self.code = code
        self.detail = detail
    }

    package var description: String {
        "HTTPServerError(\(code.rawValue)): \(detail)"
    }
}
