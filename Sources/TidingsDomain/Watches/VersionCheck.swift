/// A cheap pre-check: a JSON endpoint whose value at `pointer` changes
/// whenever the page does, so the page is fetched only when it moved.
public struct VersionCheck: Sendable, Equatable {
    public var url: NormalizedURL
    /// An RFC 6901 JSON pointer into the endpoint's response.
    public var pointer: String

    public init(url: NormalizedURL, pointer: String) {
        self.url = url
        self.pointer = pointer
    }
}
