/// A connection as the pool passes it between threads.
///
/// `@unchecked Sendable` is safe because ownership is exclusive: a pooled
/// connection is either in the pool's state (touched only under its lock) or
/// held by the one lease that took it out, and it moves between the two only
/// through that lock or a waiter's semaphore, which order the accesses.
struct PooledConnection: @unchecked Sendable {
    let connection: PostgresConnection
}
