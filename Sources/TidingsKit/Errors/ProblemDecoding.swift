import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads an error answer into a ``TidingsProblem``: the problem+json body
/// where there is one, the status and headers otherwise. Never fails: a
/// hostile or broken body still gives the status.
enum ProblemDecoding {
    private struct Body: Decodable {
        var type: String?
        var title: String?
        var detail: String?
        var field: String?
        var request_id: String?
        var retry_after: Int?
        var limit: String?
    }

    static func problem(status: Int, response: HTTPURLResponse, body: Data, now: Date = Date()) -> TidingsProblem {
        let decoded = try? JSONDecoder().decode(Body.self, from: body)
        let retryAfter =
            response.value(forHTTPHeaderField: "Retry-After").flatMap { retryAfterDuration($0, now: now) }
            ?? decoded?.retry_after.flatMap { $0 >= 0 ? Duration.seconds($0) : nil }
        return TidingsProblem(
            status: status,
            type: decoded?.type ?? "about:blank",
            title: decoded?.title ?? HTTPURLResponse.localizedString(forStatusCode: status),
            detail: decoded?.detail,
            field: decoded?.field,
            requestID: decoded?.request_id ?? response.value(forHTTPHeaderField: "X-Request-Id"),
            retryAfter: retryAfter,
            limit: decoded?.limit
        )
    }

    /// `Retry-After` as delay-seconds or an HTTP date (RFC 9110 10.2.3);
    /// nil when it is neither.
    static func retryAfterDuration(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) { return seconds >= 0 ? .seconds(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return .milliseconds(Int(max(0, date.timeIntervalSince(now)) * 1000))
    }
}
