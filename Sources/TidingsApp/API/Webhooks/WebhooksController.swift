import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsObservability

/// Webhooks of one scope: a user's own, or the admin's global ones. The
/// same handlers serve both; the scope decides who may call and which rows
/// they reach. Signing secrets appear only in the create and rotate answers
/// and never in logs; neither do URLs, which may embed receiver tokens.
struct WebhooksController: Sendable {
    let scope: WebhookScope
    let webhooks: WebhookStore
    let authenticator: Authenticator
    /// Early feedback on URLs the dispatcher would be refused at connect time.
    let addresses: TargetAddressPolicy

    func register(on router: inout Router) {
        let prefix = scope.pathPrefix
        router.post(prefix, use: createWebhook)
        router.get(prefix, use: listWebhooks)
        router.get("\(prefix)/{id}", use: showWebhook)
        router.patch("\(prefix)/{id}", use: updateWebhook)
        router.delete("\(prefix)/{id}", use: deleteWebhook)
        router.post("\(prefix)/{id}/rotate-secret", use: rotateSecret)
        router.post("\(prefix)/{id}/enable", use: enableWebhook)
    }

    @Sendable func createWebhook(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let owner = try scope.owner(of: request, authenticator: authenticator)
        let body = try request.decodeJSON(CreateWebhookBody.self)
        try addresses.check(host: body.url.host, field: "url")
        let created = try HTTPError.mappingLimits { try webhooks.create(owner: owner, body.webhook) }
        context.logger.info("webhook created", metadata: Self.metadata(owner, created.webhook.id))
        return .json(WebhookRepresentation(created), status: .created)
    }

    @Sendable func listWebhooks(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let owner = try scope.owner(of: request, authenticator: authenticator)
        let page = try webhooks.list(owner: owner, try request.pageRequest())
        return .json(ListResponse(page, WebhookRepresentation.init))
    }

    @Sendable func showWebhook(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let owner = try scope.owner(of: request, authenticator: authenticator)
        guard let webhook = try webhooks.webhook(id: try context.uuidParameter("id"), owner: owner) else { throw Self.webhookNotFound }
        return .json(WebhookRepresentation(webhook))
    }

    @Sendable func updateWebhook(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let owner = try scope.owner(of: request, authenticator: authenticator)
        let id = try context.uuidParameter("id")
        let body = try request.decodeJSON(UpdateWebhookBody.self)
        if let url = body.url { try addresses.check(host: url.host, field: "url") }
        guard let webhook = try webhooks.update(id: id, owner: owner, body.changes) else { throw Self.webhookNotFound }
        if let enabled = body.changes.enabled {
            context.logger.info(enabled ? "webhook enabled" : "webhook disabled", metadata: Self.metadata(owner, id))
        }
        return .json(WebhookRepresentation(webhook))
    }

    @Sendable func deleteWebhook(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let owner = try scope.owner(of: request, authenticator: authenticator)
        let id = try context.uuidParameter("id")
        guard try webhooks.delete(id: id, owner: owner) else { throw Self.webhookNotFound }
        context.logger.info("webhook deleted", metadata: Self.metadata(owner, id))
        return .noContent()
    }

    @Sendable func rotateSecret(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let owner = try scope.owner(of: request, authenticator: authenticator)
        let id = try context.uuidParameter("id")
        guard let rotated = try webhooks.rotateSecret(id: id, owner: owner) else { throw Self.webhookNotFound }
        context.logger.info("webhook secret rotated", metadata: Self.metadata(owner, id))
        return .json(WebhookRepresentation(rotated))
    }

    @Sendable func enableWebhook(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let owner = try scope.owner(of: request, authenticator: authenticator)
        let id = try context.uuidParameter("id")
        guard let webhook = try webhooks.enable(id: id, owner: owner) else { throw Self.webhookNotFound }
        context.logger.info("webhook enabled", metadata: Self.metadata(owner, id))
        return .json(WebhookRepresentation(webhook))
    }

    private static func metadata(_ owner: WebhookOwner, _ id: UUID) -> [String: String] {
        switch owner {
        case .user(let userID): ["user.id": userID.canonicalString, "webhook.id": id.canonicalString]
        case .global: ["webhook.global": "true", "webhook.id": id.canonicalString]
        }
    }

    private static let webhookNotFound = HTTPError(.notFound, detail: "There is no webhook with this id.")
}
