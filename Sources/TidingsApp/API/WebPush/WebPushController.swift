import TidingsDomain
import TidingsHTTPServer

/// `GET /v1/push/web/vapid-public-key`: the deployment's VAPID public key,
/// base64url of the uncompressed point, which a page passes to
/// `pushManager.subscribe` as `applicationServerKey` before registering the
/// subscription as a web device. A public key, but served to users only,
/// like every other user route: the page that subscribes holds the user's
/// API key anyway. 404 when web push is off.
struct WebPushController: Sendable {
    let apps: PushAppStore
    let authenticator: Authenticator

    func register(on router: inout Router) {
        router.get("/v1/push/web/vapid-public-key", use: publicKey)
    }

    @Sendable func publicKey(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        _ = try authenticator.requireUser(request)
        guard let key = try apps.vapidApp()?.vapidPublicKey else {
            throw HTTPError(.notFound, detail: "Web push is off on this server: TIDINGS_VAPID_PRIVATE_KEY is not set.")
        }
        return .json(VAPIDPublicKeyRepresentation(publicKey: key))
    }
}

/// `{"public_key": "<base64url>"}`.
struct VAPIDPublicKeyRepresentation: Encodable, Sendable {
    let publicKey: String

    enum CodingKeys: String, CodingKey {
        case publicKey = "public_key"
    }
}
