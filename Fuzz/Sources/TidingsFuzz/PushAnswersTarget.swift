import FoundationEssentials
import TidingsPush

/// Answers of the push services and of FCM's token endpoint, read as
/// hostile (Push's `APNsAnswer`, `FCMAnswer`, `FCMAccessGrant`, through
/// `PushAnswerBody`). The first byte picks the reader and whether the body
/// was truncated, the next two the status; then NUL-separated: body,
/// `Retry-After`, `apns-id`, the id we sent. No trap; a reason is printable
/// ASCII (free text from the body never reaches it), a provider id is
/// visible ASCII within its length or ours; each outcome only for the
/// statuses that give it; a `Retry-After` delay within 0...the cap; a grant
/// only from a 200 with a 1-4096 byte visible ASCII token and a lifetime
/// within 0...3600 s; a refusal is transient exactly for 429 and 5xx.
enum PushAnswersTarget {
    static let statuses = [200, 400, 401, 403, 404, 410, 413, 429, 500, 503, 599, 0, -1, 600, Int.max, Int.min]
    static let now = Date(timeIntervalSince1970: 1_750_000_000)
    static let longestRetryAfter: Duration = .seconds(3600)

    static func run(_ input: FuzzInput) {
        let header = Array(input.bytes.prefix(3)) + Array(repeating: 0, count: max(0, 3 - input.bytes.count))
        let truncated = header[0] & 0x80 != 0
        let status = header[2] & 1 == 0
            ? statuses[Int(header[1]) % statuses.count]
            : Int(Int16(bitPattern: UInt16(header[1]) << 8 | UInt16(header[2])))
        let parts = input.bytes.dropFirst(3).split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false)
        let body = parts.first.map(Array.init) ?? []
        func text(_ index: Int) -> String? {
            index < parts.count ? String(decoding: parts[index], as: UTF8.self) : nil
        }
        var headers: [(name: String, value: String)] = []
        if let value = text(1) { headers.append((name: "Retry-After", value: value)) }
        if let value = text(2) { headers.append((name: "apns-id", value: value)) }
        let sentID = text(3)

        switch header[0] % 3 {
        case 0:
            let reading = APNsAnswer.read(status: status, headers: headers, body: body, truncated: truncated, sentID: sentID,
                                          now: now, longestRetryAfter: longestRetryAfter)
            check(reading == APNsAnswer.read(status: status, headers: headers, body: body, truncated: truncated, sentID: sentID,
                                             now: now, longestRetryAfter: longestRetryAfter), "APNs reading is not deterministic")
            checkReading(reading, status: status, truncated: truncated, service: "APNs", idLength: 64, sentID: sentID,
                         goneStatuses: [400, 410], credentialStatus: 403)
        case 1:
            let reading = FCMAnswer.read(status: status, headers: headers, body: body, truncated: truncated,
                                         now: now, longestRetryAfter: longestRetryAfter)
            checkReading(reading, status: status, truncated: truncated, service: "FCM", idLength: 512, sentID: nil,
                         goneStatuses: [400, 404], credentialStatus: 401)
        default:
            switch FCMAccessGrant.read(status: status, body: body, truncated: truncated) {
            case .success(let grant):
                check(status == 200 && !truncated, "a grant from status \(status), truncated \(truncated)")
                check((1...FCMAccessGrant.maximumTokenLength).contains(grant.accessToken.utf8.count)
                      && grant.accessToken.utf8.allSatisfy { (0x21...0x7E).contains($0) }, "token \(grant.accessToken.debugDescription)")
                check((.zero ... FCMAccessGrant.longestLifetime).contains(grant.lifetime), "lifetime \(grant.lifetime)")
            case .failure(let error):
                let transient = status == 200 || status == 429 || (500...599).contains(status)
                check(error.isTransient == transient, "status \(status): transient \(error.isTransient)")
                checkPrintable(error.message, "token endpoint refusal")
            }
        }
    }

    private static func checkReading(
        _ reading: PushAnswerReading, status: Int, truncated: Bool, service: String, idLength: Int, sentID: String?,
        goneStatuses: Set<Int>, credentialStatus: Int
    ) {
        let result: PushResult
        switch reading {
        case .result(let outcome):
            result = outcome
        case .credentialRejected(let ifRepeated):
            check(status == credentialStatus, "\(service): credential rejected on \(status)")
            result = ifRepeated
        }
        switch result {
        case .delivered(let id):
            check(status == 200, "\(service): delivered on \(status)")
            let visible = (1...idLength).contains(id.utf8.count) && id.utf8.allSatisfy { (0x21...0x7E).contains($0) }
            check(visible || id.isEmpty || id == sentID, "\(service): provider id \(id.debugDescription)")
        case .deviceGone(let reason):
            check(goneStatuses.contains(status), "\(service): device gone on \(status)")
            checkReason(reason, service: service, truncated: truncated)
        case .retry(let after, let reason):
            if let after {
                check(status == 429 || (500...599).contains(status), "\(service): Retry-After used on \(status)")
                check((.zero ... longestRetryAfter).contains(after), "\(service): delay \(after)")
            }
            checkReason(reason, service: service, truncated: truncated)
        case .failed(let reason):
            check(status != 200, "\(service): failed on 200")
            checkReason(reason, service: service, truncated: truncated)
        }
    }

    private static func checkReason(_ reason: String, service: String, truncated: Bool) {
        checkPrintable(reason, service)
        check(reason.hasPrefix(service + ": "), "reason \(reason.debugDescription)")
        if truncated {
            check(reason.contains("no readable"), "\(service): a reason from a truncated body: \(reason.debugDescription)")
        }
    }

    private static func checkPrintable(_ text: String, _ what: String) {
        check(text.utf8.allSatisfy { (0x20...0x7E).contains($0) }, "\(what): \(text.debugDescription) is not printable ASCII")
    }
}
