import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer

/// `GET /v1/changes`: the sync feed. One request catches a woken app up on
/// every watch: the changes after its stored position, oldest first, the
/// position to store next, and the badge. Listing marks nothing read.
struct FeedController: Sendable {
    let feed: SyncFeed
    let authenticator: Authenticator

    func register(on router: inout Router) {
        router.get("/v1/changes", use: list)
    }

    @Sendable func list(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let query = try request.feedQuery()
        do {
            return .json(FeedPageRepresentation(try feed.page(userID: userID, query)))
        } catch FeedError.positionTrimmed {
            throw HTTPError(
                .gone,
                detail: "after: changes after this cursor are no longer kept; resync from the start by asking without after.",
                title: "Cursor expired",
                type: HTTPError.resyncType,
                extensions: ["field": "after"]
            )
        } catch FeedError.positionAhead {
            throw HTTPError(
                .gone,
                detail:
                    "after: this cursor is newer than anything this server has written for you; resync from the start by asking without after.",
                title: "Cursor unknown",
                type: HTTPError.resyncType,
                extensions: ["field": "after"]
            )
        } catch FeedError.unknownWatch {
            throw HTTPError(.notFound, detail: "There is no watch with this id.")
        }
    }
}

extension HTTPRequest {
    /// `after`, `limit` (1-200, default 50), `unread` and `watch_id` from
    /// the query string; 400 naming the parameter otherwise.
    func feedQuery() throws -> FeedQuery {
        var query = FeedQuery(limit: try pageRequest().limit)
        if let raw = self.query["after"] {
            guard let position = FeedPosition(token: raw) else {
                throw HTTPError.field("after", "is not a cursor returned by this API", status: .badRequest)
            }
            query.after = position
        }
        if let raw = self.query["unread"] {
            switch raw {
            case "true": query.unreadOnly = true
            case "false": query.unreadOnly = false
            default: throw HTTPError.field("unread", "must be true or false", status: .badRequest)
            }
        }
        if let raw = self.query["watch_id"] {
            guard let id = UUID(uuidString: raw) else {
                throw HTTPError.field("watch_id", "must be a UUID", status: .badRequest)
            }
            query.watchID = id
        }
        return query
    }
}
