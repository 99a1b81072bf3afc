import TidingsHTTPClient

/// Request headers and the one origin (scheme, host, port) they may be sent
/// to: a watch's headers go to the watch URL's origin, its version
/// endpoint's own headers to the version URL's. Every redirect hop gets
/// only the sets whose origin it is (`headers(for:)`), so credentials never
/// follow a redirect to another host, another port, or from https to http.
struct OriginHeaders: Sendable {
    /// Nil when the URL has no http(s) origin: the headers go nowhere.
    let origin: HTTPOrigin?
    /// Lower-case names, sorted.
    let fields: [(name: String, value: String)]

    init(url: String?, fields: [(name: String, value: String)]) {
        self.origin = url.flatMap(HTTPOrigin.init(url:))
        self.fields = fields
    }

    /// The headers of every set scoped to `origin`, in order; a later set's
    /// header replaces an earlier one of the same name (the version
    /// endpoint's own headers win over the page's on a shared origin).
    static func headers(for origin: HTTPOrigin, in sets: [OriginHeaders]) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        for set in sets where set.origin == origin && !set.fields.isEmpty {
            headers.removeAll { sent in set.fields.contains { $0.name == sent.name } }
            headers += set.fields
        }
        return headers
    }
}
