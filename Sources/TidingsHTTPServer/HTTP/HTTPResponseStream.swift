import TidingsSynchronization

/// The body of a streamed response (Server-Sent Events, for one): bytes
/// sent from any thread while the response is open, delivered in order
/// with chunked transfer coding. The caller keeps the stream, returns it in
/// an `HTTPResponse`, and goes on sending; the connection holds no thread
/// meanwhile. A stream serves one response. Served only with
/// `HTTPServerThreading.suspending`; elsewhere the request is answered 500
/// and the stream closed as `.notServed`.
///
/// At most `bufferLimit` bytes wait for a slow reader: a `send` past it
/// closes the stream (`.bufferOverflow`) and the connection, so the client
/// sees a cut body, not a clean end, and knows to reconnect. Nor may they
/// wait long: a `send` while the client has not caught up for the server's
/// response timeout closes it so too (`.responseTimeout`). A stream as a
/// whole has no deadline; a client that keeps taking what is sent keeps
/// it. A client gone, or behind, while nothing is being sent is noticed at
/// the next `send` (a heartbeat bounds how late), since a waiting
/// connection is not polled.
package final class HTTPResponseStream: Sendable {
    package enum CloseReason: String, Sendable {
        /// `finish()` was called and everything sent was handed to the
        /// connection (a HEAD request ends so too).
        case finished
        /// The client closed the connection, a write failed, or the
        /// connection idled out while the client read nothing.
        case clientGone = "client_gone"
        /// A `send` would have buffered more than `bufferLimit`.
        case bufferOverflow = "buffer_overflow"
        /// A `send` found bytes the client had not taken for longer than
        /// the response timeout.
        case responseTimeout = "response_timeout"
        /// The server shut down: what was sent went out, then a clean end.
        case serverShutdown = "server_shutdown"
        /// The response never went out: a threading mode without streams,
        /// or the server stopped before the handler's answer was sent.
        case notServed = "not_served"
    }

    private typealias Callbacks = [@Sendable (CloseReason) -> Void]

    /// What the content reader should do after `read`.
    enum ReadOutcome: Equatable {
        /// This many bytes were copied.
        case bytes(Int)
        /// Nothing to send: the connection is suspended until a `send`.
        case waiting
        /// Finished and drained: end the chunked body cleanly.
        case ended
        /// Closed abnormally (overflow, response timeout): drop the connection.
        case failed
    }

    /// The connection serving the stream, from when its response is queued
    /// until libmicrohttpd reports the request finished.
    private struct Binding {
        let connection: SuspendableConnection
        let socket: Int32
        /// How long the client may stay behind (the server's response timeout).
        let responseTimeout: Duration
        var isSuspended = false
    }

    private struct State {
        var buffer: [UInt8] = []
        var readOffset = 0
        /// Since when bytes have been waiting in `buffer` without it once
        /// being emptied: how long the client has been behind.
        var behindSince: ContinuousClock.Instant?
        var binding: Binding?
        /// Set by `finish()` or shutdown: drain, then close with this reason.
        var ending: CloseReason?
        var closed: CloseReason?
        var onClose: Callbacks = []
        var bytesSent = 0

        var buffered: Int { buffer.count - readOffset }

        mutating func close(_ reason: CloseReason) {
            closed = reason
            buffer = []
            readOffset = 0
            behindSince = nil
        }

        /// True when the client has been behind for longer than allowed.
        func isOverdue(at now: ContinuousClock.Instant) -> Bool {
            guard let behindSince, let binding else { return false }
            return now - behindSince > binding.responseTimeout
        }

        /// The callbacks not yet run, to run once the lock is released.
        mutating func takeCallbacks() -> Callbacks {
            defer { onClose = [] }
            return onClose
        }

        /// Resumes the connection if it waits for bytes; with the lock held,
        /// so the reader cannot suspend it again in between.
        mutating func wake() {
            guard binding?.isSuspended == true else { return }
            binding?.isSuspended = false
            binding?.connection.resume()
        }
    }

    package let bufferLimit: Int
    private let state = AdaptiveMutex(State())

    /// `bufferLimit`: most bytes sent but not yet taken by the connection
    /// (at least 1).
    package init(bufferLimit: Int = 256 * 1024) {
        self.bufferLimit = max(1, bufferLimit)
    }

    /// Queues `bytes` for the client. False when the stream no longer takes
    /// bytes: closed, finishing, or closed by this call because the buffer
    /// would pass `bufferLimit` or the client has been behind for longer
    /// than the response timeout. Then `onClose` runs (or has run) too.
    /// Cheap once closed, so a broadcaster may keep calling it.
    @discardableResult
    package func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard state.closed == nil, state.ending == nil else { return false }
            guard state.buffered + bytes.count <= bufferLimit else {
                cut(&state, .bufferOverflow)
                return false
            }
            let now = ContinuousClock.now
            guard !state.isOverdue(at: now) else {
                cut(&state, .responseTimeout)
                return false
            }
            if state.buffered == 0 { state.behindSince = now }
            state.buffer.append(contentsOf: bytes)
            state.wake()
            return true
        }
    }

    /// Ends the stream cleanly once what was sent has gone out. Later
    /// `send`s return false. Idempotent.
    package func finish() {
        end(.finished)
    }

    /// Runs `callback` once when the stream closes, with why; at once (on
    /// this thread) if it is closed already. Callbacks run on a server
    /// thread (or the one that returned the stream unserved), never inside
    /// `send` or `finish`, so they may take locks held around those calls.
    /// Keep them short: a polling thread runs them.
    package func onClose(_ callback: @escaping @Sendable (CloseReason) -> Void) {
        let closed: CloseReason? = state.withLock { state in
            if state.closed == nil { state.onClose.append(callback) }
            return state.closed
        }
        if let closed { callback(closed) }
    }

    /// Closes the stream now if its client has left (closed or reset its
    /// connection) and returns whether it did; `onClose` then runs with
    /// `.clientGone` when libmicrohttpd lets the connection go. A waiting
    /// stream's connection is not polled, so without this a client that
    /// left is noticed only at the next `send`.
    @discardableResult
    package func closeIfClientLeft() -> Bool {
        state.withLock { state in
            guard state.closed == nil, let socket = state.binding?.socket,
                ConnectionSocket(descriptor: socket).peerHasLeft
            else { return false }
            state.close(.clientGone)
            state.wake()
            _ = ConnectionSocket(descriptor: socket).shutDown()
            return true
        }
    }

    /// Whether `send` would still accept bytes.
    package var isOpen: Bool {
        state.withLock { $0.closed == nil && $0.ending == nil }
    }

    // MARK: Server side

    /// Bytes handed to the connection so far (for the access log).
    var bytesSent: Int {
        state.withLock { $0.bytesSent }
    }

    /// Its response is queued on `connection`, whose socket is `socket`;
    /// its client may be behind for up to `responseTimeout`, counted from
    /// now for what was sent before.
    func attach(to connection: SuspendableConnection, socket: Int32, responseTimeout: Duration) {
        state.withLock { state in
            state.binding = Binding(connection: connection, socket: socket, responseTimeout: responseTimeout)
            if state.buffered > 0 { state.behindSince = .now }
        }
    }

    /// Copies buffered bytes into `destination`. With none buffered and the
    /// stream open, suspends the connection under the stream's lock (so a
    /// concurrent `send` either lands first or sees it suspended and
    /// resumes it) and reports `.waiting`. Runs on the polling thread.
    func read(into destination: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        let (outcome, ended) = state.withLock { state -> (ReadOutcome, (CloseReason, Callbacks)?) in
            if state.closed != nil { return (.failed, nil) }
            if state.buffered > 0 {
                let count = min(state.buffered, destination.count)
                state.buffer.withUnsafeBytes { buffer in
                    destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[state.readOffset..<state.readOffset + count]))
                }
                state.readOffset += count
                state.bytesSent += count
                if state.readOffset == state.buffer.count {
                    // Idle streams are many: keep small buffers, not large ones.
                    state.buffer.removeAll(keepingCapacity: state.buffer.capacity <= 4096)
                    state.readOffset = 0
                    state.behindSince = nil
                }
                return (.bytes(count), nil)
            }
            if let ending = state.ending {
                state.close(ending)
                return (.ended, (ending, state.takeCallbacks()))
            }
            guard state.binding != nil else { return (.failed, nil) }
            state.binding?.isSuspended = true
            state.binding?.connection.suspend()
            return (.waiting, nil)
        }
        if let (reason, callbacks) = ended { run(callbacks, reason) }
        return outcome
    }

    /// libmicrohttpd reports the request finished: the connection is about
    /// to go, so the stream lets go of it. Closes the stream unless it has
    /// closed already; returns why it closed.
    func connectionEnded(completedNormally: Bool) -> CloseReason {
        let (reason, callbacks) = state.withLock { state -> (CloseReason, Callbacks) in
            state.binding = nil
            let reason = state.closed ?? (completedNormally ? (state.ending ?? .finished) : .clientGone)
            state.close(reason)
            return (reason, state.takeCallbacks())
        }
        run(callbacks, reason)
        return reason
    }

    /// Ends it cleanly for `reason` (`.finished`, `.serverShutdown`).
    func end(_ reason: CloseReason) {
        state.withLock { state in
            guard state.closed == nil, state.ending == nil else { return }
            state.ending = reason
            state.wake()
        }
    }

    /// The stream was never served: closes it at once.
    func decline(_ reason: CloseReason) {
        let (closed, callbacks) = state.withLock { state -> (CloseReason, Callbacks) in
            let closed = state.closed ?? reason
            state.close(closed)
            return (closed, state.takeCallbacks())
        }
        run(callbacks, closed)
    }

    /// Closes for a client too far behind and gets the connection dropped:
    /// resumed if it waits (the reader then fails), and its socket shut
    /// down in case libmicrohttpd is blocked writing to a client that does
    /// not read. The socket is open while the stream is bound (see
    /// `Binding`). Callbacks run when libmicrohttpd reports the request
    /// finished.
    private func cut(_ state: inout State, _ reason: CloseReason) {
        state.close(reason)
        state.wake()
        // Fails only for a socket that is no longer connected: then
        // libmicrohttpd is closing the connection already.
        if let socket = state.binding?.socket { _ = ConnectionSocket(descriptor: socket).shutDown() }
    }

    private func run(_ callbacks: Callbacks, _ reason: CloseReason) {
        for callback in callbacks { callback(reason) }
    }
}
