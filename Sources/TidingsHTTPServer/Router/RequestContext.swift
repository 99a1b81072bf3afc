package import TidingsObservability

/// What the server knows about a request besides its content: its id, a
/// logger tagged with it, and the route that matched.
package struct RequestContext: Sendable {
    package var requestID: String
    /// Carries `request.id` metadata.
    package var logger: Logger
    /// The template of the matched route (`/v1/watches/{id}`); empty before routing.
    package var routeTemplate: String
    package var pathParameters: [String: String]
    /// Reports the matched template back to the server for access logs and
    /// metrics; nil when the context was built outside a server.
    let routeRecorder: RouteRecorder?

    package init(
        requestID: String,
        logger: Logger,
        routeTemplate: String = "",
        pathParameters: [String: String] = [:]
    ) {
        self.init(
            requestID: requestID,
            logger: logger,
            routeTemplate: routeTemplate,
            pathParameters: pathParameters,
            routeRecorder: nil
        )
    }

    init(
        requestID: String,
        logger: Logger,
        routeTemplate: String,
        pathParameters: [String: String],
        routeRecorder: RouteRecorder?
    ) {
        self.requestID = requestID
        self.logger = logger
        self.routeTemplate = routeTemplate
        self.pathParameters = pathParameters
        self.routeRecorder = routeRecorder
    }

    /// The value of a path parameter declared in the route template. A
    /// missing name is a mismatch between template and handler, so it is a
    /// server error rather than the client's.
    package func parameter(_ name: String) throws(HTTPError) -> String {
        guard let value = pathParameters[name] else {
            logger.error("route has no such path parameter", metadata: ["parameter": name, "http.route": routeTemplate])
            throw HTTPError(.internalServerError)
        }
        return value
    }
}
