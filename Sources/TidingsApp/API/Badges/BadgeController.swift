import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer

/// `GET /v1/badge`: the caller's unread total, the number every device of
/// the user shows on its icon.
struct BadgeController: Sendable {
    let badges: BadgeStore
    let authenticator: Authenticator

    func register(on router: inout Router) {
        router.get("/v1/badge", use: show)
    }

    struct Representation: Encodable {
        let count: Int
        let sequence: Int
        let updatedAt: Date

        enum CodingKeys: String, CodingKey {
            case count, sequence
            case updatedAt = "updated_at"
        }
    }

    @Sendable func show(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        guard let badge = try badges.badge(userID: userID) else {
            throw HTTPError(.notFound, detail: "There is no badge for this user.")
        }
        return .json(Representation(count: badge.count, sequence: badge.sequence, updatedAt: badge.updatedAt))
    }
}
