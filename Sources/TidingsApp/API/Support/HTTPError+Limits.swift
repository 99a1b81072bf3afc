import TidingsDomain
import TidingsHTTPServer

extension HTTPError {
    /// The problem types (RFC 9457 `type`) of the limits, stable names a
    /// client can match: a 403 for a limit is not one for credentials.
    static let limitExceededType = "urn:tidings:problem:limit-exceeded"
    static let rateLimitedType = "urn:tidings:problem:rate-limited"
    /// A cursor that cannot be resumed (older than retention, or unknown):
    /// the client must resync from the start.
    static let resyncType = "urn:tidings:problem:resync"

    /// 403: the user already has as many of the resource as it may. Lists
    /// the limit by name (`limit`) and value (`maximum`).
    static func limitExceeded(_ exceeded: UserLimitExceeded) -> HTTPError {
        let things =
            switch exceeded.resource {
            case .watches: "watches"
            case .webhooks: "webhooks"
            case .devices: "devices"
            case .apiKeys: "active API keys"
            }
        let most = exceeded.maximum.map { "at most \($0) \(things)" } ?? "no more \(things)"
        return HTTPError(
            .forbidden,
            detail: "The user may have \(most) and has reached that limit (\(exceeded.resource.rawValue)). "
                + "Remove one first, or ask the administrator to raise the user's limit.",
            title: "Limit exceeded",
            type: limitExceededType,
            extensions: ["limit": exceeded.resource.rawValue],
            integerExtensions: exceeded.maximum.map { ["maximum": $0] } ?? [:]
        )
    }

    /// Runs `body`, answering a refusal by a per-user limit with
    /// `limitExceeded`.
    static func mappingLimits<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let exceeded as UserLimitExceeded {
            throw limitExceeded(exceeded)
        }
    }
}
