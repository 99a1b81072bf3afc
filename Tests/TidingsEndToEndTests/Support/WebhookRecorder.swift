import Foundation
import TidingsHTTPServer
import TidingsSynchronization

/// The receiver's responder: records each request, then answers as the
/// behaviour decides for its path.
final class WebhookRecorder: HTTPResponder, Sendable {
    let state = AdaptiveMutex(WebhookReceiver.State())
    let behaviour: AdaptiveMutex<WebhookReceiver.Behaviour>

    init(behaviour: @escaping WebhookReceiver.Behaviour) {
        self.behaviour = AdaptiveMutex(behaviour)
    }

    func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        let path = request.path
        let received = WebhookReceiver.Received(
            path: path,
            webhookID: request.headers["webhook-id"] ?? "",
            timestamp: request.headers["webhook-timestamp"] ?? "",
            signature: request.headers["webhook-signature"] ?? "",
            contentType: request.headers["content-type"] ?? "",
            userAgent: request.headers["user-agent"] ?? "",
            body: request.body,
            receivedAt: Date()
        )
        let previous = state.withLock { state in
            let previous = state.received.count { $0.path == path }
            state.received.append(received)
            state.active[path, default: 0] += 1
            state.mostActive[path] = max(state.mostActive[path] ?? 0, state.active[path]!)
            state.mostActiveInAll = max(state.mostActiveInAll, state.active.values.reduce(0, +))
            return previous
        }
        defer { state.withLock { $0.active[path, default: 1] -= 1 } }
        let reply = behaviour.withLock { $0 }(path, previous)
        // A slow receiver on purpose: the delay the behaviour chose.
        if reply.delay > .zero { Thread.sleep(forTimeInterval: reply.delay.inSeconds) }
        return HTTPResponse(status: HTTPStatus(code: reply.status), headers: HTTPHeaders(reply.headers), body: Array(reply.body.utf8))
    }
}
