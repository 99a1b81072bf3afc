import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsJSON
import TidingsObservability

/// `POST /v1/watches/{id}/check`: checks the watch's target now, through
/// the poller's pipeline (version endpoint, conditional GET, extraction),
/// writes the result as a scheduled check would, and returns it. Holds the
/// HTTP worker thread for at most the poller's `checkNowTimeout`; past it
/// the answer is 504 and the check goes on in the background. Rate
/// limited per watch and per user (`TIDINGS_CHECK_NOW_RATE`,
/// `TIDINGS_CHECK_NOW_USER_RATE`): every call counts, found or not, before
/// anything is read, so a refused call costs no query.
struct WatchCheckController: Sendable {
    let watches: WatchStore
    let authenticator: Authenticator
    let checks: any TargetCheckRunner
    let rates: RateLimitedAction

    func register(on router: inout Router) {
        router.post("/v1/watches/{id}/check", use: check)
    }

    @Sendable func check(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPResponse {
        let userID = try authenticator.requireUser(request)
        let id = try context.uuidParameter("id")
        try rates.admit(caller: userID, subject: id)
        guard let watch = try watches.watch(userID: userID, id: id) else {
            throw HTTPError(.notFound, detail: "There is no watch with this id.")
        }
        let checked: [UUID: WatchCheckResult]?
        do {
            checked = try checks.checkNow(targetID: watch.targetID)
        } catch let timeout as CheckNowTimeout {
            throw HTTPError(
                HTTPStatus(code: 504),
                detail: "The check did not finish within \(timeout.timeout). It goes on; its result will show on the watch."
            )
        }
        guard let results = checked else {
            throw HTTPError(.conflict, detail: "A check of this watch's URL is running right now; try again in a moment.")
        }
        guard let result = results[id], let checked = try watches.watch(userID: userID, id: id) else {
            throw HTTPError(.conflict, detail: "The watch changed while it was being checked; try again.")
        }
        context.logger.info(
            "watch checked",
            metadata: [
                "watch.id": id.canonicalString, "target.id": watch.targetID.canonicalString, "check.result": result.result.rawValue,
            ])
        return .json(CheckRepresentation(result: result, watch: WatchRepresentation(checked)))
    }
}

/// The outcome of a check asked for through the API, with the watch after it.
struct CheckRepresentation: Sendable {
    let result: WatchCheckResult
    let watch: WatchRepresentation
}

extension CheckRepresentation: JSONWritable {
    /// Keys in sorted order, nulls explicit.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("change_id")
        if let changeID = result.changeID { writer.value(changeID) } else { writer.null() }
        writer.key("error")
        writer.value(result.error)
        writer.key("result")
        writer.value(result.result.rawValue)
        writer.key("state")
        writer.value(result.state.rawValue)
        writer.key("watch")
        watch.write(to: &writer)
        writer.endObject()
    }
}
