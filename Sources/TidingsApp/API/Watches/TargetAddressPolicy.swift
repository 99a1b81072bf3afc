import TidingsDomain
import TidingsHTTPClient
import TidingsHTTPServer

/// Early SSRF feedback: a watch whose host resolves to a blocked address
/// (loopback, private, link-local such as cloud metadata) is refused with the
/// reason. The poller's connect-time check remains the real protection,
/// since DNS answers can change later.
struct TargetAddressPolicy: Sendable {
    let ssrfGuard: SSRFGuard

    /// Blocks for the DNS lookup; the handlers run on server worker threads.
    func check(_ url: NormalizedURL, field: String) throws(HTTPError) {
        do {
            try ssrfGuard.checkHost(url.host)
        } catch let error where error.code == .dnsFailure {
            throw HTTPError.field(field, "host could not be resolved")
        } catch {
            throw HTTPError.field(field, error.message)
        }
    }
}
