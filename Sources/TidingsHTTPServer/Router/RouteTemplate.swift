/// A parsed route template such as `/v1/watches/{id}/check`.
struct RouteTemplate: Sendable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    let text: String
    let segments: [Segment]

    /// The names of the parameters in path order.
    var parameterNames: [String] {
        segments.compactMap { segment in
            if case .parameter(let name) = segment { name } else { nil }
        }
    }

    init(_ text: String) {
        self.text = text
        segments = RouteTemplate.pathSegments(text).map { part in
            guard part.hasPrefix("{") && part.hasSuffix("}") else { return .literal(String(part)) }
            let name = String(part.dropFirst().dropLast())
            precondition(!name.isEmpty, "empty path parameter name in route template \(text)")
            return .parameter(name)
        }
        let names = parameterNames
        precondition(Set(names).count == names.count, "repeated path parameter name in route template \(text)")
    }

    /// Splits a path on `/`, ignoring empty segments so `/a//b/` matches `/a/b`.
    static func pathSegments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
