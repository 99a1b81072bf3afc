/// How libmicrohttpd gives connections to threads. Handlers run inline on
/// the thread that reads their request and block it until they answer (on
/// PostgreSQL, usually), so this decides who waits behind a slow handler.
package enum HTTPServerThreading: Sendable, Hashable, CustomStringConvertible {
    /// Each accepted connection gets a thread of its own, which ends when
    /// the connection closes: a blocking handler never delays another
    /// connection. Threads are bounded by `connectionLimit`, and idle
    /// keep-alive connections (each holding a thread) close after
    /// `connectionIdleTimeout`.
    case threadPerConnection
    /// A fixed pool of threads, each polling its share of the connections
    /// with epoll and running their handlers one after another: a request
    /// waits behind every blocking handler on its thread. For very many idle
    /// keep-alive connections, which then cost no thread each.
    case pool(threads: Int)

    package var description: String {
        switch self {
        case .threadPerConnection: "thread per connection"
        case let .pool(threads): "pool of \(threads)"
        }
    }

    func validate() throws(HTTPServerError) {
        if case let .pool(threads) = self, threads < 1 {
            throw HTTPServerError(.invalidConfiguration, detail: "a thread pool needs at least 1 thread, got \(threads)")
        }
    }
}
