/// One level of the routing tree: literal children, at most one parameter
/// child, and the routes that end here by method.
struct RouteNode: Sendable {
    struct Route: Sendable {
        let template: RouteTemplate
        let handler: HTTPHandler
    }

    var literalChildren: [String: RouteNode] = [:]
    /// At most one element: an array because a struct cannot hold an
    /// optional of its own type.
    var parameterChild: [RouteNode] = []
    var routes: [HTTPMethod: Route] = [:]

    mutating func insert(_ route: Route, method: HTTPMethod, at segments: ArraySlice<RouteTemplate.Segment>) {
        guard let segment = segments.first else {
            precondition(routes[method] == nil, "route \(method) \(route.template.text) registered twice")
            routes[method] = route
            return
        }
        let rest = segments.dropFirst()
        switch segment {
        case .literal(let text):
            literalChildren[text, default: RouteNode()].insert(route, method: method, at: rest)
        case .parameter:
            if parameterChild.isEmpty { parameterChild.append(RouteNode()) }
            parameterChild[0].insert(route, method: method, at: rest)
        }
    }

    /// The node whose routes match `segments`, preferring literal segments
    /// over parameters and backtracking when a literal branch dead-ends.
    /// `captured` receives the values consumed by parameter segments.
    func match(_ segments: ArraySlice<Substring>, captured: inout [Substring]) -> RouteNode? {
        guard let segment = segments.first else {
            return routes.isEmpty ? nil : self
        }
        let rest = segments.dropFirst()
        if let literal = literalChildren[String(segment)], let found = literal.match(rest, captured: &captured) {
            return found
        }
        if let parameter = parameterChild.first {
            captured.append(segment)
            if let found = parameter.match(rest, captured: &captured) {
                return found
            }
            captured.removeLast()
        }
        return nil
    }
}
