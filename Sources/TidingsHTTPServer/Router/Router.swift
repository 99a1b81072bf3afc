/// Routes requests by method and path template.
///
/// Templates look like `/v1/watches/{id}/check`. Literal segments win over
/// parameters. An unknown path answers 404; a known path with another method
/// answers 405 with an `Allow` header. HEAD is served by the GET handler
/// wherever no HEAD route exists (the server sends no body for HEAD).
package struct Router: Sendable, HTTPResponder {
    private var root = RouteNode()

    package init() {}

    package mutating func on(_ method: HTTPMethod, _ template: String, use handler: @escaping HTTPHandler) {
        let parsed = RouteTemplate(template)
        root.insert(RouteNode.Route(template: parsed, handler: handler), method: method, at: parsed.segments[...])
    }

    package mutating func get(_ template: String, use handler: @escaping HTTPHandler) {
        on(.get, template, use: handler)
    }

    package mutating func post(_ template: String, use handler: @escaping HTTPHandler) {
        on(.post, template, use: handler)
    }

    package mutating func put(_ template: String, use handler: @escaping HTTPHandler) {
        on(.put, template, use: handler)
    }

    package mutating func patch(_ template: String, use handler: @escaping HTTPHandler) {
        on(.patch, template, use: handler)
    }

    package mutating func delete(_ template: String, use handler: @escaping HTTPHandler) {
        on(.delete, template, use: handler)
    }

    package func respond(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        var captured: [Substring] = []
        let segments = RouteTemplate.pathSegments(request.path)
        guard let node = root.match(segments[...], captured: &captured) else {
            throw HTTPError(.notFound, detail: "No resource exists at this path.")
        }
        guard let route = node.routes[request.method] ?? (request.method == .head ? node.routes[.get] : nil) else {
            let template = node.routes.values.map(\.template.text).min() ?? ""
            context.routeRecorder?.record(template)
            throw HTTPError(
                .methodNotAllowed,
                detail: "\(request.method) is not allowed on this resource.",
                headers: ["Allow": Self.allowedMethods(node)]
            )
        }
        var context = context
        context.routeTemplate = route.template.text
        context.pathParameters = Dictionary(
            uniqueKeysWithValues: zip(route.template.parameterNames, captured.map(String.init))
        )
        context.routeRecorder?.record(route.template.text)
        return try route.handler(request, context)
    }

    private static func allowedMethods(_ node: RouteNode) -> String {
        var methods = Set(node.routes.keys.map(\.rawValue))
        if methods.contains("GET") { methods.insert("HEAD") }
        return methods.sorted().joined(separator: ", ")
    }
}
