/// The server's state for one request, from its request line to the moment
/// libmicrohttpd reports it finished. It travels through `req_cls`.
///
/// `@unchecked Sendable`: one thread at a time touches it. That is the
/// thread serving its connection, except while a handler pool thread holds
/// the request (`.handling`): the handler records its outcome only inside
/// `HandlerAnswer.deliver`, before it resumes the connection, and the
/// polling thread reads it only after libmicrohttpd has resumed it (an
/// abandoned request is never written by the handler at all). The answer's
/// and libmicrohttpd's locks order the hand-overs.
final class InFlightRequest: @unchecked Sendable {
    enum Phase {
        /// Request line read; headers not yet seen by the access handler.
        case started
        /// Headers accepted; collecting the body.
        case receivingBody
        /// With the handler pool; the connection is suspended until `answer`
        /// is settled.
        case handling
        /// A response has been queued.
        case responded
    }

    let startedAt: ContinuousClock.Instant
    /// Length of the raw request target (path and query) as sent.
    let targetLength: Int
    /// The connection it arrives on, whose deadline it runs against.
    let client: ClientConnection
    var phase = Phase.started
    var method = HTTPMethod.get
    var path = ""
    var requestID = ""
    var remoteAddress: String?
    var body: [UInt8] = []
    /// Set once the body is known to be over the limit; from then on its
    /// bytes are counted, not kept.
    var bodyLimitExceeded = false
    /// Bytes of the body received so far, kept or not.
    var receivedBodyBytes = 0
    var route: String?
    var status: HTTPStatus?
    var bytesOut = 0
    /// The handler's answer while the request is `.handling`.
    var answer: HandlerAnswer?
    /// The streamed body once its response is queued.
    var stream: HTTPResponseStream?

    init(targetLength: Int, client: ClientConnection) {
        startedAt = .now
        self.targetLength = targetLength
        self.client = client
    }

    /// Takes a piece of the upload. Returns false when the client keeps
    /// sending far beyond the limit and the connection should be dropped.
    ///
    /// libmicrohttpd 0.9.75 cannot queue a response while a body is still
    /// arriving, so a body over the limit is discarded (not buffered) up to
    /// `drainAllowance` bytes past the limit to still answer 413 at its
    /// end; past that the connection is closed without an answer.
    func receiveBody(_ chunk: UnsafeRawBufferPointer, limit: Int, drainAllowance: Int) -> Bool {
        receivedBodyBytes += chunk.count
        if !bodyLimitExceeded && receivedBodyBytes > limit {
            bodyLimitExceeded = true
            body = []
        }
        guard !bodyLimitExceeded else { return receivedBodyBytes - limit <= drainAllowance }
        body.append(contentsOf: chunk)
        return true
    }
}
