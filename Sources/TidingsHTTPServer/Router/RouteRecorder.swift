import TidingsSynchronization

/// Lets the router tell the server which route template matched, since the
/// context reaches the responder by value.
final class RouteRecorder: Sendable {
    private let template = AdaptiveMutex<String?>(nil)

    var matchedTemplate: String? {
        template.withLock { $0 }
    }

    func record(_ matched: String) {
        template.withLock { $0 = matched }
    }
}
