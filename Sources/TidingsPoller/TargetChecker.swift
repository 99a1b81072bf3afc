import Foundation
import TidingsDomain
import TidingsExtraction
import TidingsHTTPClient
import TidingsObservability
import TidingsSynchronization

/// Runs one check of a target, version-first: the version endpoint (if the
/// target has one), then a conditional GET with the validators stored with
/// the last full content, then extraction and hashing per distinct rule on
/// the `extraction` threads, each rule charged to a user who watches with
/// it (`ExtractionLanes`). Touches no database: the result is a
/// `CheckOutcome` for `OutcomeWriter`.
struct TargetChecker: Sendable {
    /// How long past its time limit an extraction may run before the check
    /// stops waiting for it (`ThreadPool.run(timeLimit:)`). Extractions
    /// normally stop themselves within milliseconds of the limit; this
    /// only catches those that cannot (libxml2 merging node sets), with
    /// room for a busy machine to schedule the ones that can.
    static let abandonGrace: Duration = .milliseconds(500)

    let client: HTTPClient
    let extraction: ThreadPool
    let logger: Logger
    let metrics: PollerMetrics
    let limiter: HostLimiter
    let configuration: PollerConfiguration
    let schedule: CheckSchedule
    /// Opens the target's sealed header values for the request, here and
    /// nowhere earlier, so they are plain only while a check needs them.
    let secrets: StoredSecrets

    func check(_ target: ClaimedTarget) async -> CheckOutcome {
        let now = Date()
        var record = TargetCheckRecord(targetID: target.id, checkedAt: now, nextCheckAt: now)
        record.underHold = target.isHeld
        let pageHeaders: OriginHeaders
        let versionHeaders: OriginHeaders
        do {
            pageHeaders = OriginHeaders(url: target.url, fields: try target.requestHeaders(.headers, secrets: secrets))
            versionHeaders = OriginHeaders(url: target.versionURL, fields: try target.requestHeaders(.versionHeaders, secrets: secrets))
        } catch {
            // Not sent without them: the check fails (and retries on the
            // failure schedule) until a configured key opens them.
            return failed(target, record, message: "the watch's request headers cannot be decrypted: \(error)", retryAfter: nil)
        }
        // A watch without a baseline needs a full body; so does every Nth check.
        let unconditional =
            target.watches.contains { $0.contentHash == nil }
            || target.checksSinceFull + 1 >= configuration.unconditionalEvery

        var newVersion: String?
        if let versionURL = target.versionURL, let pointer = target.versionPointer {
            switch await fetch(versionURL, target: target, headers: [pageHeaders, versionHeaders], conditional: false) {
            case .abandoned:
                return abandoned(target, record)
            case .failure:
                // Counted; the page itself decides whether the check works.
                record.requests += 1
            case .held:
                // No request went out; the page decides, as after a failure.
                break
            case .response(let response, _):
                record.requests += 1
                record.bytesReceived += response.bytesReceived + response.headerBytesReceived
                if (200..<300).contains(response.status) {
                    let limits = configuration.extractionLimits
                    switch await extraction.run(
                        timeLimit: limits.timeLimit + Self.abandonGrace, fairnessKey: target.tenant,
                        {
                            Self.versionHash(in: response, pointer: pointer, limits: limits)
                        })
                    {
                    case .finished(let hash):
                        newVersion = hash
                    case .abandoned(let report):
                        // As if the version could not be read: the page decides.
                        noteAbandoned(report, target: target, selector: "json_pointer")
                    }
                }
                if !unconditional, let newVersion, newVersion == target.lastVersion {
                    record.bytesSaved += max((target.lastBodySize ?? 0) - response.bytesReceived - response.headerBytesReceived, 0)
                    record.httpStatus = response.status
                    record.nextCheckAt = nextAfterSuccess(target, response: response, changed: false)
                    return CheckOutcome(
                        target: target,
                        record: record,
                        watches: target.watches.map { WatchCheckRecord(watch: $0, kind: .quiet(.versionUnchanged)) },
                        summary: .versionUnchanged
                    )
                }
            }
        }

        let page = await fetch(target.url, target: target, headers: [pageHeaders], conditional: !unconditional)
        switch page {
        case .abandoned:
            return abandoned(target, record)
        case .failure(let error):
            record.requests += 1
            return failed(target, record, message: Self.message(for: error), retryAfter: nil)
        case .held(let remaining):
            let message = "not requested: the server asked for no requests for another \(remaining.roundedUpSeconds) s (Retry-After)"
            return failed(target, record, message: message, retryAfter: remaining)
        case .response(let response, let retryAfter):
            record.requests += 1
            record.bytesReceived += response.bytesReceived + response.headerBytesReceived
            record.httpStatus = response.status
            if response.status == 304 {
                record.notModified = 1
                record.bytesSaved += max((target.lastBodySize ?? 0) - response.bytesReceived - response.headerBytesReceived, 0)
                record.nextCheckAt = nextAfterSuccess(target, response: response, changed: false)
                return CheckOutcome(
                    target: target,
                    record: record,
                    watches: target.watches.map { WatchCheckRecord(watch: $0, kind: .quiet(.notModified)) },
                    summary: .notModified
                )
            }
            guard (200..<300).contains(response.status) else {
                return failed(target, record, message: "the server answered HTTP \(response.status)", retryAfter: retryAfter)
            }
            return await fetched(target, record, response: response, unconditional: unconditional, version: newVersion)
        }
    }

    /// A full response: a body that hashes as the last one every watch
    /// extracted from is unchanged for all of them; otherwise extract per
    /// watch (once per distinct rule, in its owner's lane, `ExtractionLanes`),
    /// then decide which validators may be kept with the content.
    private func fetched(
        _ target: ClaimedTarget, _ record: TargetCheckRecord, response: HTTPClientResponse, unconditional: Bool, version: String?
    ) async -> CheckOutcome {
        var record = record
        let bodyHash = await extraction.run(fairnessKey: target.tenant) { ContentExtractor.bodyHash(response.body) }
        // Valid only while every watch holds a hash taken from that body:
        // a new watch, a changed rule (hash reset) or a pending
        // re-baseline has none.
        let bodyUnchanged =
            bodyHash == target.bodySHA256
            && target.watches.allSatisfy { $0.contentHash != nil && !$0.quietRebaseline }
        if bodyUnchanged { metrics.unchangedBodies.increment() }
        let extracted = bodyUnchanged ? [:] : await extractAll(target, response: response)
        var watches: [WatchCheckRecord] = []
        for watch in target.watches {
            if bodyUnchanged {
                watches.append(WatchCheckRecord(watch: watch, kind: .quiet(.unchanged)))
                continue
            }
            // Every rule is in some lane (`ExtractionLanes`); were one not,
            // its watches fail rather than record nothing.
            guard let result = extracted[watch.extractJSON] else {
                watches.append(WatchCheckRecord(watch: watch, kind: .failed("check failed: the watch's rule was not run")))
                continue
            }
            switch result {
            case .success(let content):
                let snapshot = content.text.prefix(utf8Bytes: configuration.snapshotByteLimit)
                watches.append(
                    WatchCheckRecord(
                        watch: watch,
                        kind: .content(
                            .init(
                                hash: content.hash,
                                snapshot: snapshot,
                                snapshotTruncated: content.isTruncated || snapshot.utf8.count < content.text.utf8.count,
                                httpStatus: response.status,
                                contentLength: response.body.count
                            ))))
            case .failure(let error):
                watches.append(WatchCheckRecord(watch: watch, kind: .failed(Self.message(for: error))))
            }
        }
        // Validators describe the body at the URL they came from, and only
        // count once every watch stored what it extracted from that body;
        // so does the body's hash, wherever it came from.
        let allStored = bodyUnchanged || watches.allSatisfy { if case .content = $0.kind { true } else { false } }
        let sameURL = response.redirectCount == 0 || response.effectiveURL == target.url
        if allStored && sameURL {
            record.validators = .replace(
                (etag: Self.validator(response.header("ETag")), lastModified: Self.validator(response.header("Last-Modified"))))
            record.version = .replace(version)
        } else {
            record.validators = .replace((etag: nil, lastModified: nil))
            record.version = .replace(nil)
        }
        record.bodySHA256 = .replace(allStored ? bodyHash : nil)
        record.fullBodySize = response.bytesReceived + response.headerBytesReceived
        record.wasUnconditional = unconditional || (target.etag == nil && target.lastModified == nil)
        record.contentChanged = watches.contains(where: \.isChange)
        record.nextCheckAt = nextAfterSuccess(target, response: response, changed: record.contentChanged)
        return CheckOutcome(target: target, record: record, watches: watches, summary: .fetched)
    }

    /// Every distinct rule's result, keyed by the stored rule. The lanes
    /// (one per owner with a rule to run) run side by side; within one,
    /// rules run one after another on one parsed body, the owner's time
    /// budget shared between them.
    private func extractAll(_ target: ClaimedTarget, response: HTTPClientResponse) async -> [String?: Result<ExtractedContent, any Error>] {
        let lanes = ExtractionLanes(watches: target.watches.map { (owner: $0.userID, rule: $0.extractJSON) }).lanes
        var rules: [String?: ExtractionRule?] = [:]
        for watch in target.watches where rules[watch.extractJSON] == nil { rules[watch.extractJSON] = watch.extract }
        let known = rules
        // One lane (one watcher, or all with one rule): no task to start.
        if lanes.count == 1, let lane = lanes.first {
            return await extract(lane.rules.map { (key: $0, rule: known[$0] ?? nil) }, owner: lane.owner, from: response, target: target)
        }
        return await withTaskGroup(of: [String?: Result<ExtractedContent, any Error>].self) { group in
            for lane in lanes {
                let rules = lane.rules.map { (key: $0, rule: known[$0] ?? nil) }
                let owner = lane.owner
                group.addTask { await extract(rules, owner: owner, from: response, target: target) }
            }
            var all: [String?: Result<ExtractedContent, any Error>] = [:]
            for await results in group { all.merge(results) { first, _ in first } }
            return all
        }
    }

    /// One owner's rules, each as a job of its own in the owner's turn of
    /// the pool, so that only this rule's watches fail when it has to be
    /// abandoned. The jobs run one after another on the same parsed
    /// content (decision 0027), and together within one extraction time
    /// limit: a rule gets what the owner's earlier rules left of it.
    private func extract(
        _ rules: [(key: String?, rule: ExtractionRule?)], owner: UUID, from response: HTTPClientResponse, target: ClaimedTarget
    ) async -> [String?: Result<ExtractedContent, any Error>] {
        let limits = configuration.extractionLimits
        var content: ResponseContent?
        var spent: Duration = .zero
        var results: [String?: Result<ExtractedContent, any Error>] = [:]
        for (key, rule) in rules {
            var left = limits
            left.timeLimit = limits.timeLimit - spent
            let ruleLimits = left
            guard ruleLimits.timeLimit > .zero else {
                results[key] = .failure(
                    ExtractionError.timeLimitExceeded(limits.timeLimit, during: "spent by this user's other rules on the same page"))
                continue
            }
            let current = content ?? ResponseContent(body: response.body, contentType: response.header("Content-Type"))
            let spec = ExtractionSpec(rule: rule)
            switch await extraction.run(
                timeLimit: ruleLimits.timeLimit + Self.abandonGrace, fairnessKey: owner,
                {
                    let started = ContinuousClock.now
                    let result = Result { try ContentExtractor.extract(from: current, spec: spec, limits: ruleLimits) }
                    return (result, ContinuousClock.now - started)
                })
            {
            case .finished(let (result, elapsed)):
                results[key] = result
                spent += elapsed
                content = current
            case .abandoned(let report):
                noteAbandoned(report, target: target, selector: Self.selectorName(rule))
                results[key] = .failure(
                    ExtractionError.timeLimitExceeded(limits.timeLimit, during: "abandoned: it could not be interrupted"))
                spent = limits.timeLimit
                // The abandoned job may still be using the parsed body.
                content = nil
            }
        }
        return results
    }

    /// Counts and logs an extraction the check stopped waiting for: it goes
    /// on in the background at the lowest CPU priority.
    private func noteAbandoned(_ report: ThreadPoolAbandonment, target: ClaimedTarget, selector: String) {
        metrics.extractionsAbandoned.increment()
        var metadata = [
            "target.id": target.id.canonicalString,
            "extraction.selector": selector,
            "extraction.abandoned_threads": String(report.abandonedThreads),
            "extraction.replaced": String(report.isReplaced),
        ]
        if let errno = report.priorityError { metadata["extraction.priority_errno"] = String(errno) }
        if report.isReplaced {
            logger.warning("extraction abandoned past its time limit; it runs on at low priority", metadata: metadata)
        } else {
            logger.warning(
                "extraction abandoned past its time limit, at the limit of abandoned threads: one extraction thread fewer until one ends",
                metadata: metadata)
        }
    }

    private func failed(_ target: ClaimedTarget, _ record: TargetCheckRecord, message: String, retryAfter: Duration?) -> CheckOutcome {
        var record = record
        record.error = message
        record.nextCheckAt = schedule.afterFailure(
            now: record.checkedAt,
            intervalSeconds: target.intervalSeconds,
            previousFailures: target.consecutiveFailures,
            retryAfter: retryAfter,
            random: Double.random(in: 0...1)
        )
        return CheckOutcome(
            target: target,
            record: record,
            watches: target.watches.map { WatchCheckRecord(watch: $0, kind: .failed(message)) },
            summary: .failed
        )
    }

    private func abandoned(_ target: ClaimedTarget, _ record: TargetCheckRecord) -> CheckOutcome {
        CheckOutcome(target: target, record: record, watches: [], summary: .failed, abandoned: true)
    }

    /// Backs off while the content stays the same (304, version or hash
    /// unchanged), within the target's bounds; `response` is the one that
    /// decided, whose cache headers may lengthen the delay (decision 0028).
    private func nextAfterSuccess(_ target: ClaimedTarget, response: HTTPClientResponse, changed: Bool) -> Date {
        let now = Date()
        return schedule.afterSuccess(
            now: now,
            bounds: CheckBounds(intervalSeconds: target.intervalSeconds, maximumSeconds: target.maxIntervalSeconds),
            unchangedSince: changed ? now : target.contentChangedAt,
            cacheLifetime: CacheLifetime.remaining(of: response, now: now),
            random: Double.random(in: 0...1)
        )
    }

    // MARK: Helpers

    /// The SHA-256 of the version endpoint's value at the pointer (as
    /// ContentExtractor reads it), compared with the one stored last time.
    private static func versionHash(in response: HTTPClientResponse, pointer: String, limits: ExtractionLimits) -> String? {
        let spec = ExtractionSpec(selector: .jsonPointer(pointer))
        return try? ContentExtractor.extract(body: response.body, contentType: response.header("Content-Type"), spec: spec, limits: limits)
            .hash
    }

    /// The longest `ETag` or `Last-Modified` kept; real ones are tens of bytes.
    static let longestValidator = 1024

    /// A validator as sent back in the next conditional request, or nil
    /// (the next request is unconditional) when the origin sent one that is
    /// too long to store for every check or holds control characters.
    static func validator(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= longestValidator,
            !value.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F })
        else { return nil }
        return value
    }

    /// The rule's kind for logs, as the API names it.
    static func selectorName(_ rule: ExtractionRule?) -> String {
        switch rule?.selector {
        case nil: "readable"
        case .raw: "raw"
        case .css: "css"
        case .xpath: "xpath"
        case .jsonPointer: "json_pointer"
        }
    }

    static func message(for error: any Error) -> String {
        if let error = error as? HTTPClientError { return error.userDescription }
        if let error = error as? ExtractionError { return "extraction failed: \(error)" }
        return "check failed: \(error)"
    }
}
