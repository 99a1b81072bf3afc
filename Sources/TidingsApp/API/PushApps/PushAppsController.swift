import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsObservability

/// `/v1/push-apps`: the admin registers the credentials Tidings pushes
/// with, one per (platform, app id). Private keys are write-only: never in
/// an answer or a log.
struct PushAppsController: Sendable {
    let apps: PushAppStore
    let authenticator: Authenticator

    func register(on router: inout Router) {
        router.post("/v1/push-apps", use: createApp)
        router.get("/v1/push-apps", use: listApps)
        router.get("/v1/push-apps/{id}", use: showApp)
        router.patch("/v1/push-apps/{id}", use: updateApp)
        router.delete("/v1/push-apps/{id}", use: deleteApp)
    }

    @Sendable func createApp(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try authenticator.requireAdmin(request)
        let body = try request.decodeJSON(CreatePushAppBody.self)
        guard let app = try apps.create(body.app) else { throw Self.duplicate }
        context.logger.info("push app created", metadata: Self.metadata(app))
        return .json(PushAppRepresentation(app), status: .created)
    }

    @Sendable func listApps(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try authenticator.requireAdmin(request)
        let page = try apps.list(try request.pageRequest())
        return .json(ListResponse(page, PushAppRepresentation.init))
    }

    @Sendable func showApp(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try authenticator.requireAdmin(request)
        guard let app = try apps.app(id: try context.uuidParameter("id")) else { throw Self.notFound }
        return .json(PushAppRepresentation(app))
    }

    @Sendable func updateApp(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try authenticator.requireAdmin(request)
        let id = try context.uuidParameter("id")
        let body = try request.decodeJSON(UpdatePushAppBody.self)
        switch try apps.update(id: id, { try body.apply(to: &$0) }) {
        case .notFound: throw Self.notFound
        case .conflict: throw Self.duplicate
        case .updated(let app):
            context.logger.info("push app updated", metadata: Self.metadata(app))
            return .json(PushAppRepresentation(app))
        }
    }

    @Sendable func deleteApp(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try authenticator.requireAdmin(request)
        let id = try context.uuidParameter("id")
        guard try apps.delete(id: id) else { throw Self.notFound }
        context.logger.info("push app deleted", metadata: ["push_app.id": id.canonicalString])
        return .noContent()
    }

    private static func metadata(_ app: PushApp) -> [String: String] {
        ["push_app.id": app.id.canonicalString, "push_app.platform": app.platform.rawValue, "push_app.app_id": app.appID]
    }

    private static let notFound = HTTPError(.notFound, detail: "There is no push app with this id.")
    private static let duplicate = HTTPError(
        .conflict, detail: "A push app with this platform and app_id exists; change or delete that one.")
}
