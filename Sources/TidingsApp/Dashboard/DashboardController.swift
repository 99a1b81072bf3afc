import TidingsHTTPServer

/// Serves the dashboard (decision 0054): `/` sends the browser to `/ui/`,
/// `/ui/` is the page and `/ui/{name}` its scripts and styles, all from
/// memory (`DashboardAssets`). Every answer carries a strict
/// Content-Security-Policy: only this origin's scripts, styles and
/// connections, no inline code, no framing.
struct DashboardController: Sendable {
    let assets: DashboardAssets

    static let contentSecurityPolicy = [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ].joined(separator: "; ")

    func register(on router: inout Router) {
        router.get("/", use: redirectToPage)
        router.get("/ui", use: page)
        router.get("/ui/{name}", use: asset)
    }

    @Sendable func redirectToPage(_ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse {
        var headers = Self.securityHeaders
        headers.add(name: "Location", value: "/ui/")
        headers.add(name: "Cache-Control", value: "no-store")
        return HTTPResponse(status: HTTPStatus(code: 302), headers: headers)
    }

    @Sendable func page(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try serve("index.html", request)
    }

    @Sendable func asset(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try serve(context.pathParameters["name"] ?? "", request)
    }

    private func serve(_ name: String, _ request: HTTPRequest) throws -> HTTPResponse {
        guard let asset = assets[name] else {
            throw HTTPError(.notFound, detail: "No resource exists at this path.")
        }
        var headers = Self.securityHeaders
        // Names carry no version, so the browser asks again each time; the
        // tag makes that a 304 without a body.
        headers.add(name: "Cache-Control", value: "no-cache")
        headers.add(name: "ETag", value: asset.entityTag)
        if let condition = request.headers["If-None-Match"], Self.matches(condition, asset.entityTag) {
            return HTTPResponse(status: .notModified, headers: headers)
        }
        headers.add(name: "Content-Type", value: asset.contentType)
        return HTTPResponse(status: .ok, headers: headers, body: asset.body)
    }

    private static var securityHeaders: HTTPHeaders {
        [
            "Content-Security-Policy": contentSecurityPolicy,
            "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY",
            "Referrer-Policy": "no-referrer",
            "Cross-Origin-Opener-Policy": "same-origin",
            "Cross-Origin-Resource-Policy": "same-origin",
        ]
    }

    /// RFC 9110 weak comparison over a list of tags, or `*`.
    static func matches(_ condition: String, _ tag: String) -> Bool {
        condition.split(separator: ",").contains { candidate in
            var trimmed = candidate.drop { $0 == " " || $0 == "\t" }
            while trimmed.last == " " || trimmed.last == "\t" { trimmed = trimmed.dropLast() }
            if trimmed.hasPrefix("W/") { trimmed = trimmed.dropFirst(2) }
            return trimmed == "*" || trimmed == tag
        }
    }
}
