import TidingsHTTPServer
import TidingsObservability
import TidingsPostgres

/// Wraps the router so that an unavailable database answers 503 with
/// `Retry-After` (the client may simply try again) instead of a bare 500.
/// Other errors pass through unchanged.
struct DatabaseErrorResponder: HTTPResponder {
    let wrapped: any HTTPResponder

    func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        do {
            return try wrapped.respond(to: request, context: context)
        } catch let error as PostgresError where Self.isUnavailable(error) {
            context.logger.warning("database unavailable", metadata: ["error": error.description])
            throw HTTPError(.serviceUnavailable, detail: "The database is unavailable; try again shortly.", headers: ["Retry-After": "1"])
        }
    }

    private static func isUnavailable(_ error: PostgresError) -> Bool {
        [.poolTimeout, .poolClosed, .connectionFailed, .connectionClosed].contains(error.code)
    }
}
