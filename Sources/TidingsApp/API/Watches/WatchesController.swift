import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsObservability

/// A user's watches. Every handler is scoped by the caller: another user's
/// watch is "not found". Logs carry ids only: URLs may hold tokens in their
/// query, and header values are secrets.
///
/// A watch created, or edited so that it compares something new, makes its
/// target due now for a baseline, which is a check: it takes a token from
/// the user's `check` rate (`TIDINGS_CHECK_NOW_USER_RATE`). Without one the
/// watch is still written, and waits for the target's schedule (a new
/// target: an interval from now), so creating and deleting watches in a
/// loop cannot force checks of a target.
struct WatchesController: Sendable {
    let watches: WatchStore
    let authenticator: Authenticator
    let intervals: IntervalBounds
    let addresses: TargetAddressPolicy
    let checkRates: RateLimitedAction

    func register(on router: inout Router) {
        router.post("/v1/watches", use: create)
        router.get("/v1/watches", use: list)
        router.get("/v1/watches/{id}", use: show)
        router.patch("/v1/watches/{id}", use: update)
        router.delete("/v1/watches/{id}", use: delete)
        router.post("/v1/watches/{id}/pause", use: pause)
        router.post("/v1/watches/{id}/resume", use: resume)
    }

    @Sendable func create(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let body = try request.decodeJSON(CreateWatchBody.self)
        let interval = body.intervalSeconds ?? intervals.defaultSeconds
        try intervals.validate(interval)
        if let maximum = body.maxIntervalSeconds { try intervals.validateMaximum(maximum) }
        try addresses.check(host: body.url.host, field: "url")
        if let versionCheck = body.versionCheck { try addresses.check(host: versionCheck.url.host, field: "version_url") }
        var settings = WatchSettings(
            url: body.url,
            headers: body.headers,
            name: body.name,
            intervalSeconds: interval,
            maxIntervalSeconds: body.maxIntervalSeconds,
            maxIntervalChosen: body.maxIntervalSeconds != nil,
            versionCheck: body.versionCheck,
            extract: body.extract,
            notify: body.notify ?? .badge
        )
        try intervals.settle(&settings, maximumGiven: body.maxIntervalSeconds != nil)
        let dueNow = checkRates.limiter.admitCaller(userID)
        let watch = try Self.mappingRuleLimit {
            try HTTPError.mappingLimits { try watches.create(userID: userID, settings: settings, dueNow: dueNow) }
        }
        context.logger.info("watch created", metadata: Self.metadata(watch))
        return .json(WatchRepresentation(watch), status: .created)
    }

    @Sendable func list(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let page = try watches.list(userID: userID, filter: try Self.filter(request), page: try request.pageRequest())
        return .json(ListResponse(page, WatchRepresentation.init))
    }

    @Sendable func show(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        guard let watch = try watches.watch(userID: userID, id: try context.uuidParameter("id")) else { throw Self.notFound }
        return .json(WatchRepresentation(watch))
    }

    @Sendable func update(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let id = try context.uuidParameter("id")
        let body = try request.decodeJSON(UpdateWatchBody.self)
        if let interval = body.intervalSeconds { try intervals.validate(interval) }
        if let maximum = body.maxIntervalSeconds ?? nil { try intervals.validateMaximum(maximum) }
        if let url = body.url { try addresses.check(host: url.host, field: "url") }
        if let versionURL = body.versionURL ?? nil { try addresses.check(host: versionURL.host, field: "version_url") }
        let update = {
            try watches.update(userID: userID, id: id, dueNow: { checkRates.limiter.admitCaller(userID) }) {
                try body.apply(to: &$0, intervals: intervals)
            }
        }
        guard let watch = try Self.mappingRuleLimit(update) else { throw Self.notFound }
        context.logger.info("watch updated", metadata: Self.metadata(watch))
        return .json(WatchRepresentation(watch))
    }

    @Sendable func delete(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let id = try context.uuidParameter("id")
        guard try watches.delete(userID: userID, id: id) else { throw Self.notFound }
        context.logger.info("watch deleted", metadata: ["watch.id": id.canonicalString, "user.id": userID.canonicalString])
        return .noContent()
    }

    @Sendable func pause(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try setPaused(true, request, context)
    }

    @Sendable func resume(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        try setPaused(false, request, context)
    }

    private func setPaused(_ paused: Bool, _ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        guard let watch = try watches.setPaused(paused, userID: userID, id: try context.uuidParameter("id")) else {
            throw Self.notFound
        }
        context.logger.info(paused ? "watch paused" : "watch resumed", metadata: Self.metadata(watch))
        return .json(WatchRepresentation(watch))
    }

    /// `paused=true|false` and `state=pending|ok|failing`; 400 naming the
    /// parameter otherwise, like `limit` and `cursor`.
    private static func filter(_ request: HTTPRequest) throws -> WatchFilter {
        var filter = WatchFilter()
        let query = request.query
        if let raw = query["paused"] {
            switch raw {
            case "true": filter.paused = true
            case "false": filter.paused = false
            default:
                throw HTTPError.field("paused", "must be true or false", status: .badRequest)
            }
        }
        if let raw = query["state"] {
            guard let state = WatchState(rawValue: raw) else {
                let states = WatchState.allCases.map(\.rawValue).joined(separator: ", ")
                throw HTTPError.field("state", "must be one of \(states)", status: .badRequest)
            }
            filter.state = state
        }
        return filter
    }

    /// 422 naming `extract`: the watch's target would carry too many
    /// distinct rules (`TIDINGS_MAX_RULES_PER_TARGET`).
    private static func mappingRuleLimit<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let exceeded as RulesPerTargetExceeded {
            throw HTTPError.field(
                "extract",
                "the URL already carries \(exceeded.maximum) distinct extraction rules from its watchers, the most one URL may; use one of the rules it has, or no rule"
            )
        }
    }

    private static func metadata(_ watch: Watch) -> [String: String] {
        ["watch.id": watch.id.canonicalString, "target.id": watch.targetID.canonicalString, "user.id": watch.userID.canonicalString]
    }

    private static let notFound = HTTPError(.notFound, detail: "There is no watch with this id.")
}
