import Dispatch
import TidingsHTTPServer
import TidingsSynchronization

/// A `/events` route that opens a stream per request and hands it to the
/// test, with how each one closed.
final class StreamSource: Sendable {
    private let streams = AdaptiveMutex<[HTTPResponseStream]>([])
    private let closes = AdaptiveMutex<[HTTPResponseStream.CloseReason]>([])
    private let opened = DispatchSemaphore(value: 0)
    let bufferLimit: Int

    init(bufferLimit: Int = 256 * 1024) {
        self.bufferLimit = bufferLimit
    }

    func install(on router: inout Router) {
        let handler: HTTPHandler = { [self] _, _ in
            let stream = HTTPResponseStream(bufferLimit: bufferLimit)
            stream.onClose { [self] reason in closes.withLock { $0.append(reason) } }
            streams.withLock { $0.append(stream) }
            opened.signal()
            return .eventStream(stream)
        }
        router.get("/events", use: handler)
        router.post("/events", use: handler)
    }

    /// The next stream the route opened, waiting up to 10 s for it.
    func next() -> HTTPResponseStream? {
        guard opened.wait(timeout: .now() + .seconds(10)) == .success else { return nil }
        return streams.withLock { $0.removeFirst() }
    }

    var closeReasons: [HTTPResponseStream.CloseReason] {
        closes.withLock { $0 }
    }
}
