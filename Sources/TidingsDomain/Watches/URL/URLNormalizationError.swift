/// Why a URL cannot be watched. `code` is fixed and safe for logs; `message`
/// is the client-facing detail.
package struct URLNormalizationError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        case tooLong = "too_long"
        case malformed
        case unsupportedScheme = "unsupported_scheme"
        case userInfo = "user_info"
        case invalidHost = "invalid_host"
        case invalidPort = "invalid_port"
        case invalidPercentEncoding = "invalid_percent_encoding"
    }

    package let code: Code
    package let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code.rawValue): \(message)" }
}
