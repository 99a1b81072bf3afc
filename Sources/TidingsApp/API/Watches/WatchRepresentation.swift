import FoundationEssentials
import TidingsDomain

/// A watch as the API shows it. Request header values are write-only: only
/// `header_names` appear.
struct WatchRepresentation: Encodable, Sendable {
    let watch: Watch

    init(_ watch: Watch) {
        self.watch = watch
    }

    enum CodingKeys: String, CodingKey {
        case id, url, name, extract, paused, state
        case intervalSeconds = "interval_seconds"
        case versionURL = "version_url"
        case versionPointer = "version_pointer"
        case headerNames = "header_names"
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
        try container.encode(watch.versionURL, forKey: .versionURL)
        try container.encode(watch.versionPointer, forKey: .versionPointer)
        try container.encode(watch.extract, forKey: .extract)
        try container.encode(watch.headerNames, forKey: .headerNames)
        try container.encode(watch.paused, forKey: .paused)
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
