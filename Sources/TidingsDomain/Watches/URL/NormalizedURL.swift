/// An absolute http(s) URL in the one spelling `URLNormalizer` produces, so
/// equal URLs compare equal as text (and share a target).
package struct NormalizedURL: Sendable, Hashable, CustomStringConvertible {
    /// The whole URL, e.g. `https://example.com/news?page=2`.
    package let text: String
    /// `http` or `https`.
    package let scheme: String
    /// Lower-case host name or address; IPv6 addresses keep their brackets.
    package let host: String
    /// The port when it is not the scheme's default.
    package let port: Int?

    init(scheme: String, host: String, port: Int?, pathAndQuery: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.text = "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")\(pathAndQuery)"
    }

    package var description: String { text }
}
