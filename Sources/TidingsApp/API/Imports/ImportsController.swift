import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsObservability

/// `POST /v1/imports` and `GET /v1/watches/export` (decision 0055).
///
/// An import reads the file (changedetection.io's `url-watches.json`,
/// urlwatch's `urls.yaml`, OPML or Tidings' own export), turns each entry
/// into a create body validated as `POST /v1/watches` validates one, and
/// creates every watch the user does not have yet in one transaction.
/// Entries that cannot be mapped make it a 422 naming them, unless
/// `skip_rejected=true`; `dry_run=true` answers the same and writes nothing.
struct ImportsController: Sendable {
    let watches: WatchStore
    let authenticator: Authenticator
    let intervals: IntervalBounds
    let addresses: TargetAddressPolicy
    let checkRates: RateLimitedAction

    /// Rejected entries a 422's detail names; a dry run lists them all.
    static let rejectionsNamed = 5

    func register(on router: inout Router) {
        router.post("/v1/imports", use: importWatches)
        router.get("/v1/watches/export", use: export)
    }

    @Sendable func importWatches(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let dryRun = try Self.flag("dry_run", in: request)
        let skipRejected = try Self.flag("skip_rejected", in: request)
        guard !request.body.isEmpty else { throw HTTPError(.badRequest, detail: "The request body is empty: send the file as the body.") }
        let format = try Self.format(of: request)

        var settings: [WatchSettings] = []
        var rejected: [ImportAnswer.Rejected] = []
        var hosts = ImportAddressChecks(policy: addresses)
        for (index, url, outcome) in try Self.entries(of: request.body, format: format) {
            switch outcome.flatMap({ body in Result { () throws(HTTPError) in try self.settings(from: body, hosts: &hosts) } }) {
            case .success(let watch): settings.append(watch)
            case .failure(let problem): rejected.append(.init(index: index, url: url, reason: problem.detail ?? problem.title))
            }
        }
        if !rejected.isEmpty && !skipRejected && !dryRun {
            let named = rejected.prefix(Self.rejectionsNamed).map { "[\($0.index)] \($0.reason)" }.joined(separator: "; ")
            throw HTTPError(
                .unprocessableContent,
                detail:
                    "\(rejected.count) entries cannot be imported, so nothing was: \(named). dry_run=true lists them all; skip_rejected=true imports the rest."
            )
        }
        let dueNow = !dryRun && checkRates.limiter.admitCaller(userID)
        let result = try Self.mappingRuleLimit {
            try HTTPError.mappingLimits { try watches.importWatches(userID: userID, settings, dueNow: dueNow, dryRun: dryRun) }
        }
        if !dryRun {
            context.logger.info(
                "watches imported",
                metadata: [
                    "user.id": userID.canonicalString, "import.format": format.rawValue,
                    "import.created": String(result.created.count), "import.existing": String(result.existing),
                    "import.rejected": String(rejected.count),
                ])
        }
        let answer = ImportAnswer(dryRun: dryRun, format: format, created: result.created, existing: result.existing, rejected: rejected)
        return .json(answer, status: !dryRun && !result.created.isEmpty ? .created : .ok)
    }

    @Sendable func export(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        var all: [Watch] = []
        var cursor: PageCursor?
        repeat {
            let page = try watches.list(
                userID: userID, filter: WatchFilter(), page: PageRequest(limit: PageRequest.maximumLimit, cursor: cursor))
            all += page.items
            cursor = page.nextCursor
        } while cursor != nil
        var response = HTTPResponse.json(WatchExportDocument(watches: all))
        response.headers.add(name: "Content-Disposition", value: "attachment; filename=\"tidings-watches.json\"")
        return response
    }

    /// The settings a create with this body would store, or the problem a
    /// create would answer.
    private func settings(from body: ImportedWatchBody, hosts: inout ImportAddressChecks) throws(HTTPError) -> WatchSettings {
        let create = body.watch
        let interval = create.intervalSeconds ?? intervals.defaultSeconds
        try intervals.validate(interval)
        if let maximum = create.maxIntervalSeconds { try intervals.validateMaximum(maximum) }
        try hosts.check(host: create.url.host, field: "watch.url")
        if let versionCheck = create.versionCheck { try hosts.check(host: versionCheck.url.host, field: "watch.version_url") }
        var settings = WatchSettings(
            url: create.url,
            headers: create.headers,
            name: create.name,
            intervalSeconds: interval,
            maxIntervalSeconds: create.maxIntervalSeconds,
            maxIntervalChosen: create.maxIntervalSeconds != nil,
            versionCheck: create.versionCheck,
            extract: create.extract,
            paused: body.paused,
            notify: create.notify ?? .badge
        )
        try intervals.settle(&settings, maximumGiven: create.maxIntervalSeconds != nil)
        return settings
    }

    private typealias Entry = (index: Int, url: String?, outcome: Result<ImportedWatchBody, HTTPError>)

    private static func entries(of body: [UInt8], format: WatchImportFormat) throws(HTTPError) -> [Entry] {
        if format == .tidings {
            let file: WatchExportFile
            do {
                file = try ImportedEntry.decoder.decode(WatchExportFile.self, from: Data(body))
            } catch let error as DecodingError {
                throw JSONDecodingProblem.httpError(for: error, body: Data(body))
            } catch {
                throw HTTPError(.badRequest, detail: "The file is not valid JSON.")
            }
            // Only on text the decoder accepted (its nesting bounded).
            if let repeated = JSONDuplicateMembers.firstRepeated(in: body) { throw HTTPError.field(repeated, "appears more than once") }
            guard file.entries.count <= WatchImportLimits.maximumEntries else { throw tooManyEntries(file.entries.count) }
            return file.entries.enumerated().map { index, entry in
                (index, try? entry.outcome.get().watch.url.text, entry.outcome)
            }
        }
        let entries: [WatchImportEntry]
        do {
            entries = try WatchImportReader.entries(of: body, format: format)
        } catch {
            throw HTTPError(.unprocessableContent, detail: "The \(format.rawValue) file cannot be read: \(error.message).")
        }
        return entries.map { entry in
            switch entry.content {
            case .watch(let json): (entry.index, entry.url, ImportedEntry.decode(json))
            case .rejected(let reason): (entry.index, entry.url, .failure(HTTPError(.unprocessableContent, detail: reason)))
            }
        }
    }

    private static func tooManyEntries(_ count: Int) -> HTTPError {
        HTTPError(
            .unprocessableContent, detail: "The file has \(count) entries; an import takes at most \(WatchImportLimits.maximumEntries).")
    }

    /// `?format=` names it; otherwise the body's first bytes do.
    private static func format(of request: HTTPRequest) throws(HTTPError) -> WatchImportFormat {
        if let name = request.query["format"] {
            guard let format = WatchImportFormat(rawValue: name) else {
                let names = WatchImportFormat.allCases.map(\.rawValue).joined(separator: ", ")
                throw HTTPError.field("format", "must be one of \(names)", status: .badRequest)
            }
            return format
        }
        guard let format = WatchImportFormat.sniff(request.body, contentType: request.headers["Content-Type"]) else {
            throw HTTPError(
                .unsupportedMediaType,
                detail:
                    "The file is not one Tidings imports (changedetection.io's url-watches.json, urlwatch's urls.yaml, OPML, or a Tidings export); name its format with ?format= if it is."
            )
        }
        return format
    }

    private static func flag(_ name: String, in request: HTTPRequest) throws(HTTPError) -> Bool {
        switch request.query[name] {
        case nil, "false": false
        case "true": true
        default: throw HTTPError.field(name, "must be true or false", status: .badRequest)
        }
    }

    private static func mappingRuleLimit<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let exceeded as RulesPerTargetExceeded {
            throw HTTPError(
                .unprocessableContent,
                detail:
                    "An imported watch's URL would carry more than \(exceeded.maximum) distinct extraction rules from its watchers, the most one URL may; nothing was imported."
            )
        }
    }
}
