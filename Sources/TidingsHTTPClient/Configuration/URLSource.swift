/// Who chose the URLs a client requests, which decides whether the SSRF
/// guard stands between the client and the network.
package enum URLSource: Sendable, Equatable {
    /// Users of the API (watch URLs, webhook URLs): every address the client
    /// connects to passes the SSRF guard, unless `allowPrivateTargets` says
    /// otherwise.
    case tenants
    /// Only the operator's own configuration (the push services and their
    /// token endpoints): no tenant can point such a client anywhere, so the
    /// guard is off and a gateway on a private address needs no
    /// `TIDINGS_ALLOW_PRIVATE_TARGETS`. Never give such a client a URL that
    /// a user supplied.
    case operatorConfiguration
}
