import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsObservability

/// A watch's change history and reading it. Listing marks nothing read;
/// only an explicit read lowers the counts (and announces the new badge).
/// Scoped by the caller: another user's watch is "not found".
struct ChangesController: Sendable {
    let changes: ChangeStore
    let authenticator: Authenticator

    func register(on router: inout Router) {
        router.get("/v1/watches/{id}/changes", use: list)
        router.post("/v1/watches/{id}/read", use: read)
    }

    @Sendable func list(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let watchID = try context.uuidParameter("id")
        guard let page = try changes.list(userID: userID, watchID: watchID, page: try request.pageRequest()) else {
            throw Self.notFound
        }
        return .json(ListResponse(page, ChangeRepresentation.init))
    }

    @Sendable func read(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let watchID = try context.uuidParameter("id")
        // The body is optional: a bare POST reads everything.
        let body = request.body.isEmpty ? ReadWatchBody() : try request.decodeJSON(ReadWatchBody.self)
        let receipt: ReadReceipt
        do {
            guard let result = try changes.markRead(userID: userID, watchID: watchID, upTo: body.upToChangeID) else {
                throw Self.notFound
            }
            receipt = result
        } catch ChangeStoreError.unknownChange {
            throw HTTPError.field("up_to_change_id", "is not a change of this watch", status: .unprocessableContent)
        }
        context.logger.info(
            "watch read",
            metadata: [
                "user.id": userID.canonicalString,
                "watch.id": watchID.canonicalString,
                "badge.count": String(receipt.badge.count),
            ])
        return .json(ReadReceiptRepresentation(receipt: receipt))
    }

    private static let notFound = HTTPError(.notFound, detail: "There is no watch with this id.")
}
