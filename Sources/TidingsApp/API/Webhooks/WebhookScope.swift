import TidingsDomain
import TidingsHTTPServer

/// Which webhooks a set of routes serves: a user's own under `/v1/webhooks`
/// (API key), or the global ones under `/v1/admin/webhooks` (admin token).
enum WebhookScope: Sendable {
    case user
    case global

    var pathPrefix: String {
        switch self {
        case .user: "/v1/webhooks"
        case .global: "/v1/admin/webhooks"
        }
    }

    /// Authenticates the caller for this scope and names whose webhooks it reaches.
    func owner(of request: HTTPRequest, authenticator: Authenticator) throws -> WebhookOwner {
        switch self {
        case .user:
            return .user(try authenticator.requireUser(request))
        case .global:
            try authenticator.requireAdmin(request)
            return .global
        }
    }
}
