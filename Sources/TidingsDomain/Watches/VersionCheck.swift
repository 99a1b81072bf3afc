/// A cheap pre-check: a JSON endpoint whose value at `pointer` changes
/// whenever the page does, so the page is fetched only when it moved.
package struct VersionCheck: Sendable, Equatable {
    package var url: NormalizedURL
    /// An RFC 6901 JSON pointer into the endpoint's response.
    package var pointer: String

    package init(url: NormalizedURL, pointer: String) {
        self.url = url
        self.pointer = pointer
    }
}
