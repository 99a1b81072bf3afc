/// How the event stream service is bounded (docs/LIMITS.md).
struct EventStreamSettings: Sendable {
    /// Open streams in this process (`TIDINGS_MAX_STREAMS`).
    var maxStreams = 10_000
    /// Open streams of one user in this process (`TIDINGS_MAX_STREAMS_PER_USER`).
    var maxStreamsPerUser = 10
    /// A comment this often keeps quiet streams open through proxies.
    var heartbeat: Duration = .seconds(15)
    /// The `retry:` hint: how long a client waits before reconnecting.
    var retry: Duration = .seconds(3)
    /// Bytes a reader may fall behind before it is disconnected.
    var bufferLimit = 256 * 1024
    /// Events read for one user in one turn; a user with more waits for
    /// the other users' turns before the next batch.
    var readBatch = 200
}
