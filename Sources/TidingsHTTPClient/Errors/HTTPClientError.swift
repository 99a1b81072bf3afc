/// Why a request failed. `code` is a short fixed name, safe for logs and
/// metric labels; `message` is the human detail (addresses, limits, libcurl's
/// text), never request header values.
package struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    package var code: Code
    package var message: String

    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code): \(message)" }
}
