/// An HTTP request method. Any token is accepted, so unusual methods reach
/// the router (which answers 405) instead of failing to parse.
package struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package static let get = HTTPMethod(rawValue: "GET")
    package static let post = HTTPMethod(rawValue: "POST")
    package static let put = HTTPMethod(rawValue: "PUT")
    package static let patch = HTTPMethod(rawValue: "PATCH")
    package static let delete = HTTPMethod(rawValue: "DELETE")
    package static let head = HTTPMethod(rawValue: "HEAD")
    package static let options = HTTPMethod(rawValue: "OPTIONS")

    package let rawValue: String

    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    package var description: String { rawValue }
}
