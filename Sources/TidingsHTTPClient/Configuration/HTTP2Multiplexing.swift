/// HTTP/2 with many requests as concurrent streams on few connections, the
/// way push services want to be spoken to (APNs asks for one long-lived
/// connection per provider, carrying many streams).
///
/// Requests to a host wait for a connection being set up, instead of each
/// opening its own, until libcurl knows whether it multiplexes
/// (`CURLOPT_PIPEWAIT`); an HTTP/2 connection then carries up to
/// `maxConcurrentStreams` of them at once (and no more than the server's
/// own limit), the rest wait in libcurl's queue with their timeouts
/// running. Pair it with `HTTPClientConfiguration.maxConnectionsPerHost = 1`
/// for exactly one connection per host. Over HTTP/1.1 (a server that does
/// not offer h2) requests run one at a time per connection.
package struct HTTP2Multiplexing: Sendable, Equatable {
    /// Streams in flight on one connection (`CURLMOPT_MAX_CONCURRENT_STREAMS`,
    /// libcurl's default is 100); at least 1.
    package var maxConcurrentStreams: Int

    package init(maxConcurrentStreams: Int = 1000) {
        self.maxConcurrentStreams = maxConcurrentStreams
    }
}
