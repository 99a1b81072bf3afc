/// A cheap pre-check: a JSON endpoint whose value at `pointer` changes
/// whenever the page does, so the page is fetched only when it moved.
package struct VersionCheck: Sendable, Equatable {
    package var url: NormalizedURL
    /// An RFC 6901 JSON pointer into the endpoint's response.
    package var pointer: String
    /// The endpoint's own request headers (often another credential than
    /// the page's), sent only to the endpoint's origin. Secrets, like the
    /// watch's headers; part of the target's identity.
    package var headers: RequestHeaders

    package init(url: NormalizedURL, pointer: String, headers: RequestHeaders = .none) {
        self.url = url
        self.pointer = pointer
        self.headers = headers
    }
}
