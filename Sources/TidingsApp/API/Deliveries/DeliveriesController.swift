import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsObservability

/// The delivery log and replay of one webhook scope: a user's own webhooks
/// under `/v1/webhooks` and `/v1/deliveries`, the admin's global ones under
/// `/v1/admin/...`. Another owner's webhook or delivery is 404.
struct DeliveriesController: Sendable {
    let scope: WebhookScope
    let deliveries: DeliveryStore
    let authenticator: Authenticator
    /// Shared by both scopes.
    let rates: Rates

    /// Each request that makes the dispatcher send again is limited per
    /// subject and per user (the admin: per subject only), like checks.
    struct Rates: Sendable {
        /// Test events, per webhook.
        let tests: RateLimitedAction
        /// Retries on request, per delivery.
        let retries: RateLimitedAction
        /// Recoveries, per webhook.
        let recoveries: RateLimitedAction
    }

    func register(on router: inout Router) {
        let webhooks = scope.pathPrefix
        router.get("\(webhooks)/{id}/deliveries", use: listDeliveries)
        router.post("\(webhooks)/{id}/recover", use: recover)
        router.post("\(webhooks)/{id}/test", use: sendTest)
        router.post("\(deliveriesPrefix)/{id}/retry", use: retry)
    }

    private var deliveriesPrefix: String {
        switch scope {
        case .user: "/v1/deliveries"
        case .global: "/v1/admin/deliveries"
        }
    }

    @Sendable func listDeliveries(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let owner = try scope.owner(of: request, authenticator: authenticator)
        let id = try context.uuidParameter("id")
        let filter = try DeliveryLogQuery.filter(from: request)
        let page = try request.pageRequest()
        guard let found = try deliveries.deliveries(webhookID: id, owner: owner, filter: filter, page: page) else {
            throw Self.webhookNotFound
        }
        return .json(ListResponse(found, DeliveryRepresentation.init))
    }

    @Sendable func retry(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let owner = try scope.owner(of: request, authenticator: authenticator)
        let id = try context.uuidParameter("id")
        try rates.retries.admit(caller: owner.userID, subject: id)
        switch try deliveries.retry(deliveryID: id, owner: owner) {
        case .queued(let delivery):
            context.logger.info("delivery retry requested", metadata: ["delivery.id": id.canonicalString])
            return .json(DeliveryRepresentation(delivery), status: .accepted)
        case .inFlight:
            throw HTTPError(.conflict, detail: "The delivery is being sent right now; try again once this attempt has finished.")
        case .webhookDisabled:
            throw Self.webhookDisabled
        case .notFound:
            throw HTTPError(.notFound, detail: "There is no delivery with this id.")
        }
    }

    @Sendable func recover(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let owner = try scope.owner(of: request, authenticator: authenticator)
        let id = try context.uuidParameter("id")
        let body = try request.decodeJSON(RecoverBody.self)
        // After the body is checked (a malformed one costs no token),
        // before the store is asked.
        try rates.recoveries.admit(caller: owner.userID, subject: id)
        guard let requeued = try deliveries.recover(webhookID: id, owner: owner, since: body.since) else {
            throw Self.webhookNotFound
        }
        context.logger.info("webhook recovery requested", metadata: ["webhook.id": id.canonicalString, "deliveries": String(requeued)])
        return .json(RecoverResponse(requeued: requeued), status: .accepted)
    }

    @Sendable func sendTest(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let owner = try scope.owner(of: request, authenticator: authenticator)
        let id = try context.uuidParameter("id")
        // Counted before the store is asked, found or not: a refused call
        // costs no query.
        try rates.tests.admit(caller: owner.userID, subject: id)
        switch try deliveries.sendTestEvent(webhookID: id, owner: owner) {
        case .queued(let eventID, let deliveryID):
            return .json(TestEventResponse(eventID: eventID.canonicalString, deliveryID: deliveryID.canonicalString), status: .accepted)
        case .webhookDisabled:
            throw Self.webhookDisabled
        case .notFound:
            throw Self.webhookNotFound
        }
    }

    private static let webhookNotFound = HTTPError(.notFound, detail: "There is no webhook with this id.")
    private static let webhookDisabled = HTTPError(.conflict, detail: "The webhook is disabled; enable it first.")
}

struct RecoverResponse: Encodable, Sendable {
    let requeued: Int
}

struct TestEventResponse: Encodable, Sendable {
    let eventID: String
    let deliveryID: String

    enum CodingKeys: String, CodingKey {
        case eventID = "event_id"
        case deliveryID = "delivery_id"
    }
}
