import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsJSON

/// A watch as the API shows it. Request header values are write-only: only
/// `header_names` and `version_header_names` appear.
struct WatchRepresentation: Encodable, Sendable {
    let watch: Watch

    init(_ watch: Watch) {
        self.watch = watch
    }

    enum CodingKeys: String, CodingKey {
        case id, url, name, extract, paused, notify, state
        case intervalSeconds = "interval_seconds"
        case maxIntervalSeconds = "max_interval_seconds"
        case nextCheckAt = "next_check_at"
        case versionURL = "version_url"
        case versionPointer = "version_pointer"
        case headerNames = "header_names"
        case versionHeaderNames = "version_header_names"
        case lastCheckedAt = "last_checked_at"
        case lastCheckResult = "last_check_result"
        case lastChangedAt = "last_changed_at"
        case contentHash = "content_hash"
        case unreadCount = "unread_count"
        case consecutiveFailures = "consecutive_failures"
        case lastError = "last_error"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case fetchStatistics = "fetch_statistics"
    }

    enum FetchStatisticsKeys: String, CodingKey {
        case requests
        case notModified = "not_modified"
        case bytesReceived = "bytes_received"
        case bytesSaved = "bytes_saved"
    }

    /// Every key is always present; nulls are explicit.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(watch.id.canonicalString, forKey: .id)
        try container.encode(watch.url, forKey: .url)
        try container.encode(watch.name, forKey: .name)
        try container.encode(watch.intervalSeconds, forKey: .intervalSeconds)
        try container.encode(watch.maxIntervalSeconds, forKey: .maxIntervalSeconds)
        try container.encode(watch.nextCheckAt, forKey: .nextCheckAt)
        try container.encode(watch.versionURL, forKey: .versionURL)
        try container.encode(watch.versionPointer, forKey: .versionPointer)
        try container.encode(watch.versionHeaderNames, forKey: .versionHeaderNames)
        try container.encode(watch.extract, forKey: .extract)
        try container.encode(watch.headerNames, forKey: .headerNames)
        try container.encode(watch.paused, forKey: .paused)
        try container.encode(watch.notify.rawValue, forKey: .notify)
        try container.encode(watch.state.rawValue, forKey: .state)
        try container.encode(watch.lastCheckedAt, forKey: .lastCheckedAt)
        try container.encode(watch.lastCheckResult?.rawValue, forKey: .lastCheckResult)
        try container.encode(watch.lastChangedAt, forKey: .lastChangedAt)
        try container.encode(watch.contentHash, forKey: .contentHash)
        try container.encode(watch.unreadCount, forKey: .unreadCount)
        try container.encode(watch.consecutiveFailures, forKey: .consecutiveFailures)
        try container.encode(watch.lastError, forKey: .lastError)
        try container.encode(watch.createdAt, forKey: .createdAt)
        try container.encode(watch.updatedAt, forKey: .updatedAt)
        var statistics = container.nestedContainer(keyedBy: FetchStatisticsKeys.self, forKey: .fetchStatistics)
        try statistics.encode(watch.fetchStatistics.requests, forKey: .requests)
        try statistics.encode(watch.fetchStatistics.notModified, forKey: .notModified)
        try statistics.encode(watch.fetchStatistics.bytesReceived, forKey: .bytesReceived)
        try statistics.encode(watch.fetchStatistics.bytesSaved, forKey: .bytesSaved)
    }
}

extension WatchRepresentation: JSONWritable {
    /// The same bytes as `encode(to:)`, keys in sorted order.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("consecutive_failures")
        writer.value(watch.consecutiveFailures)
        writer.key("content_hash")
        writer.value(watch.contentHash)
        writer.key("created_at")
        writer.value(watch.createdAt)
        writer.key("extract")
        Self.write(watch.extract, to: &writer)
        writer.key("fetch_statistics")
        writer.beginObject()
        writer.key("bytes_received")
        writer.value(watch.fetchStatistics.bytesReceived)
        writer.key("bytes_saved")
        writer.value(watch.fetchStatistics.bytesSaved)
        writer.key("not_modified")
        writer.value(watch.fetchStatistics.notModified)
        writer.key("requests")
        writer.value(watch.fetchStatistics.requests)
        writer.endObject()
        writer.key("header_names")
        writer.value(watch.headerNames)
        writer.key("id")
        writer.value(watch.id)
        writer.key("interval_seconds")
        writer.value(watch.intervalSeconds)
        writer.key("last_changed_at")
        writer.value(watch.lastChangedAt)
        writer.key("last_check_result")
        writer.value(watch.lastCheckResult?.rawValue)
        writer.key("last_checked_at")
        writer.value(watch.lastCheckedAt)
        writer.key("last_error")
        writer.value(watch.lastError)
        writer.key("max_interval_seconds")
        writer.value(watch.maxIntervalSeconds)
        writer.key("name")
        writer.value(watch.name)
        writer.key("next_check_at")
        writer.value(watch.nextCheckAt)
        writer.key("notify")
        writer.value(watch.notify.rawValue)
        writer.key("paused")
        writer.value(watch.paused)
        writer.key("state")
        writer.value(watch.state.rawValue)
        writer.key("unread_count")
        writer.value(watch.unreadCount)
        writer.key("updated_at")
        writer.value(watch.updatedAt)
        writer.key("url")
        writer.value(watch.url)
        writer.key("version_header_names")
        writer.value(watch.versionHeaderNames)
        writer.key("version_pointer")
        writer.value(watch.versionPointer)
        writer.key("version_url")
        writer.value(watch.versionURL)
        writer.endObject()
    }

    /// `ExtractionRule`'s `Codable` shape: the selector's key and `ignore`.
    private static func write(_ rule: ExtractionRule?, to writer: inout JSONWriter) {
        guard let rule else { return writer.null() }
        writer.beginObject()
        switch rule.selector {
        case .css(let css):
            writer.key("css")
            writer.value(css)
            writer.key("ignore")
            writer.value(rule.ignorePatterns)
        case .jsonPointer(let pointer):
            writer.key("ignore")
            writer.value(rule.ignorePatterns)
            writer.key("json_pointer")
            writer.value(pointer)
        case .xpath(let xpath):
            writer.key("ignore")
            writer.value(rule.ignorePatterns)
            writer.key("xpath")
            writer.value(xpath)
        case .raw:
            writer.key("ignore")
            writer.value(rule.ignorePatterns)
            writer.key("raw")
            writer.value(true)
        }
        writer.endObject()
    }
}
