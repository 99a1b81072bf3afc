/// Why a request failed. `code` is a short fixed name, safe for logs and
/// metric labels; `message` is the human detail (addresses, limits, libcurl's
/// text), never request header values.
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
