import TidingsHTTPClient
import TidingsHTTPServer

/// Early SSRF feedback for every URL Tidings will call (watched pages,
/// version endpoints, webhooks): a host that resolves now to a blocked
/// address (loopback, private, link-local such as cloud metadata) is
/// refused, without saying which address or range: that would answer
/// questions about the internal network. A name that does not resolve is
/// accepted; its checks or deliveries fail with a clear reason and retry.
/// The connect-time check in the HTTP client remains the real protection,
/// since DNS answers can change later.
struct TargetAddressPolicy: Sendable {
    let ssrfGuard: SSRFGuard

    /// 422 naming `field` when the host is refused. Blocks for the DNS
    /// lookup (at most `SSRFGuard.hostCheckTimeout`); the handlers run on
    /// server worker threads.
    func check(host: String, field: String) throws(HTTPError) {
        do {
            try ssrfGuard.checkHost(host)
        } catch {
            throw HTTPError.field(field, error.userMessage)
        }
    }
}
