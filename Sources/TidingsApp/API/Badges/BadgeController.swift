import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsObservability

/// The caller's unread total, the number every device of the user shows on
/// its icon, and clearing it.
struct BadgeController: Sendable {
    let badges: BadgeStore
    let authenticator: Authenticator

    func register(on router: inout Router) {
        router.get("/v1/badge", use: show)
        router.post("/v1/badge/read-all", use: readAll)
    }

    @Sendable func show(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        guard let badge = try badges.badge(userID: userID) else { throw Self.notFound }
        return .json(BadgeRepresentation(badge))
    }

    @Sendable func readAll(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        guard let badge = try badges.readAll(userID: userID) else { throw Self.notFound }
        context.logger.info("all read", metadata: ["user.id": userID.canonicalString, "badge.sequence": String(badge.sequence)])
        return .json(BadgeRepresentation(badge))
    }

    private static let notFound = HTTPError(.notFound, detail: "There is no badge for this user.")
}
