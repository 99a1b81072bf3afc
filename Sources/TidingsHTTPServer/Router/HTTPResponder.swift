/// Produces the response to one request. Runs synchronously on one of the
/// server's worker threads, so it may block (for example on a database
/// call) without stalling Swift's cooperative thread pool.
package protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse
}

/// A route handler: throw `HTTPError` for expected failures.
package typealias HTTPHandler = @Sendable (HTTPRequest, RequestContext) throws -> HTTPResponse
