import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsJSON
import TidingsObservability

/// `GET /v1/events`: the caller's events as Server-Sent Events, as they
/// commit, resumable from `Last-Event-ID` (or `?after=`) within retention;
/// `POST /v1/events/tokens`: a one-time token for `?token=`, since a
/// browser's `EventSource` cannot send an Authorization header. Tokens
/// ride in the query, which the access log leaves out.
struct EventsController: Sendable {
    let hub: EventStreamHub
    let events: EventStore
    let tokens: StreamTokenStore
    let authenticator: Authenticator
    let tokenRates: RateLimitedAction

    func register(on router: inout Router) {
        router.get("/v1/events", use: stream)
        router.post("/v1/events/tokens", use: issueToken)
    }

    @Sendable func issueToken(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        try tokenRates.admit(caller: userID, subject: userID)
        let issued = try tokens.issue(userID: userID)
        return .json(StreamTokenRepresentation(token: issued.token, expiresAt: issued.expiresAt), status: .created)
    }

    @Sendable func stream(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try caller(of: request)
        let types = try request.eventTypes()
        let asked = try request.resumePosition()
        guard let bounds = try events.bounds(userID: userID) else {
            throw BearerCredential.unauthorized("The API key is unknown or revoked.")
        }
        var preamble = ServerSentEvents.retry(hub.settings.retry)
        var from = bounds.newest
        if let asked {
            if bounds.canResume(from: asked) {
                from = asked
            } else {
                preamble += Self.resyncEvent(asked < bounds.trimmedThrough ? "cursor_expired" : "cursor_unknown", at: bounds.newest)
            }
        }
        do {
            let stream = try hub.open(userID: userID, after: from, types: types, preamble: preamble)
            context.logger.info(
                "event stream opened",
                metadata: [
                    "user.id": userID.canonicalString,
                    "stream.after": from.token,
                ])
            return .eventStream(stream)
        } catch .userAtLimit(let maximum) {
            throw HTTPError(
                .tooManyRequests,
                detail: "This user has \(maximum) event streams open on this server, the most it may; close one first.",
                title: "Too many streams",
                type: HTTPError.limitExceededType,
                headers: ["Retry-After": "10"],
                extensions: ["limit": "streams_per_user"],
                integerExtensions: ["maximum": maximum]
            )
        } catch .processAtLimit {
            throw HTTPError(
                .serviceUnavailable, detail: "This server holds as many event streams as it may; retry, perhaps on another.",
                headers: ["Retry-After": "5"])
        } catch .stopping {
            throw HTTPError(.serviceUnavailable, detail: "This server is shutting down; reconnect.", headers: ["Retry-After": "1"])
        }
    }

    /// `?token=` (spent by this request) or the Authorization header.
    private func caller(of request: HTTPRequest) throws -> UUID {
        guard let token = request.query["token"] else { return try authenticator.requireUser(request) }
        guard let userID = try authenticator.lookUp(credentialOf: request, { try tokens.redeem(token) }) else {
            throw BearerCredential.unauthorized("The stream token is unknown, used or expired; ask POST /v1/events/tokens for a new one.")
        }
        return userID
    }

    /// The first event of a stream whose position cannot be resumed: the
    /// client must resync (`GET /v1/changes` without `after`); the stream
    /// goes on from now, and the event's id is where.
    private static func resyncEvent(_ reason: String, at position: FeedPosition) -> [UInt8] {
        var data = JSONWriter(capacity: 64)
        data.beginObject()
        data.key("reason")
        data.value(reason)
        data.endObject()
        let body = EventBody.json(
            type: "stream.resync", timestamp: UTCTimestamp.format(Date()), data: String(decoding: data.bytes, as: UTF8.self))
        return ServerSentEvents.event(id: position.token, type: "stream.resync", data: body)
    }
}

extension EventsController {
    /// `a,b,c` as event types; nil when any name is not one (or is empty).
    static func eventTypes(_ list: String) -> Set<WebhookEventType>? {
        var types = Set<WebhookEventType>()
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let type = WebhookEventType(rawValue: String(name)) else { return nil }
            types.insert(type)
        }
        return types
    }
}

extension HTTPRequest {
    /// `types=a,b`: event types to send; nil for all.
    fileprivate func eventTypes() throws -> Set<WebhookEventType>? {
        guard let raw = query["types"] else { return nil }
        guard let types = EventsController.eventTypes(raw) else {
            throw HTTPError.field("types", "must be a comma-separated list of event types", status: .badRequest)
        }
        return types
    }

    /// `Last-Event-ID` (what `EventSource` sends when it reconnects), or
    /// `after` on a first connection.
    fileprivate func resumePosition() throws -> FeedPosition? {
        if let raw = headers.values(for: "Last-Event-ID").first {
            guard let position = FeedPosition(token: raw) else {
                throw HTTPError.field("Last-Event-ID", "is not an event id this API sent", status: .badRequest)
            }
            return position
        }
        guard let raw = query["after"] else { return nil }
        guard let position = FeedPosition(token: raw) else {
            throw HTTPError.field("after", "is not a cursor returned by this API", status: .badRequest)
        }
        return position
    }
}
