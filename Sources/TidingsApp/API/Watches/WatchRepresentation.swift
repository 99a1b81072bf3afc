import FoundationEssentials
import TidingsDomain
import TidingsHTTPServer
import TidingsJSON
import TidingsObservability

/// A watch as the API shows it. Request header values are write-only: only
/// `header_names` and `version_header_names` appear.
struct WatchRepresentation: Sendable {
    let watch: Watch

    init(_ watch: Watch) {
        self.watch = watch
    }
}

extension WatchRepresentation: JSONWritable {
    /// Keys in sorted order; every key is always present, nulls explicit.
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
