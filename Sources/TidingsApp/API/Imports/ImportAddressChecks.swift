import Foundation
import TidingsHTTPClient
import TidingsHTTPServer
import TidingsIP

/// The early SSRF check of a create (`TargetAddressPolicy`), for the many
/// hosts of an import: each host once, literal addresses always (no
/// lookup), names while the import's lookup budget lasts. A name past the
/// budget is left to the connect-time check, which is the real protection
/// for every request anyway: an import of 10,000 distinct hosts must not
/// wait for 10,000 lookups of up to 2 s each.
struct ImportAddressChecks {
    /// How long one import may spend resolving names for feedback.
    static let lookupBudget: Duration = .seconds(3)

    private let policy: TargetAddressPolicy
    private let lookupsEnd: ContinuousClock.Instant
    private var checked: [String: HTTPError?] = [:]

    init(policy: TargetAddressPolicy) {
        self.policy = policy
        lookupsEnd = .now + Self.lookupBudget
    }

    mutating func check(host: String, field: String) throws(HTTPError) {
        if let known = checked[host] {
            if let problem = known { throw HTTPError.field(field, Self.message(of: problem)) }
            return
        }
        let literal = IPAddress(host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host) != nil
        guard literal || ContinuousClock.now < lookupsEnd else { return }
        do {
            try policy.check(host: host, field: field)
            checked[host] = .some(nil)
        } catch {
            checked[host] = error
            throw error
        }
    }

    /// The message of a field problem, without its "field: " prefix.
    private static func message(of problem: HTTPError) -> String {
        guard let detail = problem.detail, let separator = detail.range(of: ": ") else { return problem.detail ?? problem.title }
        return String(detail[separator.upperBound...])
    }
}
