/// How libmicrohttpd gives connections to threads, and where handlers run.
/// Handlers block their thread until they answer (on PostgreSQL, usually),
/// so this decides who waits behind a slow handler.
package enum HTTPServerThreading: Sendable, Hashable, CustomStringConvertible {
    /// Each accepted connection gets a thread of its own, which ends when
    /// the connection closes and runs its handlers inline: a blocking
    /// handler never delays another connection. Threads are bounded by
    /// `connectionLimit`, and idle keep-alive connections (each holding a
    /// thread) close after `connectionIdleTimeout`. No streamed responses.
    case threadPerConnection
    /// A fixed pool of threads, each polling its share of the connections
    /// with epoll and running their handlers inline, one after another: a
    /// request waits behind every blocking handler on its thread. No
    /// streamed responses.
    case pool(threads: Int)
    /// `pollingThreads` do all socket I/O with epoll; every handler runs on
    /// one of `handlerThreads`, its connection suspended meanwhile, so a
    /// blocking handler delays no other connection, and neither an idle
    /// keep-alive connection nor an open stream (`HTTPResponseStream`)
    /// holds a thread. The handlers' queue takes turns between client
    /// addresses. The only mode that serves streams.
    case suspending(pollingThreads: Int, handlerThreads: Int)

    package var description: String {
        switch self {
        case .threadPerConnection: "thread per connection"
        case .pool(let threads): "pool of \(threads)"
        case .suspending(let polling, let handlers): "\(polling) polling and \(handlers) handler threads"
        }
    }

    /// The handler pool's size; nil where handlers run inline.
    var handlerThreads: Int? {
        if case .suspending(_, let handlers) = self { handlers } else { nil }
    }

    func validate() throws(HTTPServerError) {
        switch self {
        case .threadPerConnection:
            return
        case .pool(let threads) where threads < 1:
            throw HTTPServerError(.invalidConfiguration, detail: "a thread pool needs at least 1 thread, got \(threads)")
        case .suspending(let polling, let handlers) where polling < 1 || handlers < 1:
            throw HTTPServerError(
                .invalidConfiguration,
                detail: "suspending threading needs at least 1 polling and 1 handler thread, got \(polling) and \(handlers)"
            )
        case .pool, .suspending:
            return
        }
    }
}
