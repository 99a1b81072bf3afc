/// Counters of one target since it was created: requests sent (version
/// endpoint included), 304 answers, bytes received on the wire, and bytes
/// not downloaded because a 304 or an unchanged version made the full body
/// unnecessary (estimated from the size of the last full response).
package struct FetchStatistics: Sendable, Equatable {
    package let requests: Int
    package let notModified: Int
    package let bytesReceived: Int
    package let bytesSaved: Int

    package init(requests: Int, notModified: Int, bytesReceived: Int, bytesSaved: Int) {
        self.requests = requests
        self.notModified = notModified
        self.bytesReceived = bytesReceived
        self.bytesSaved = bytesSaved
    }
}
