import TidingsHTTPClient
import TidingsHTTPServer

/// Early SSRF feedback for every URL Tidings will call (watched pages,
/// version endpoints, webhooks): a host that resolves to a blocked address
/// (loopback, private, link-local such as cloud metadata) is refused with the
/// reason. The connect-time check in the HTTP client remains the real
/// protection, since DNS answers can change later.
struct TargetAddressPolicy: Sendable {
    let ssrfGuard: SSRFGuard

    /// 422 naming `field` when the host is refused or does not resolve.
    /// Blocks for the DNS lookup; the handlers run on server worker threads.
    func check(host: String, field: String) throws(HTTPError) {
        do {
            try ssrfGuard.checkHost(host)
        } catch let error where error.code == .dnsFailure {
            throw HTTPError.field(field, "host could not be resolved")
        } catch {
            throw HTTPError.field(field, error.message)
        }
    }
}
