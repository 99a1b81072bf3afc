import FoundationEssentials
import TidingsDomain

/// Tidings' own format: `GET /v1/watches/export` writes it and
/// `POST /v1/imports` reads it back. Each entry's `watch` is the body of
/// `POST /v1/watches` that recreates the watch; header values never leave
/// (they are write-only), only their names, in `withheld_headers`.
struct WatchExportDocument: Encodable {
    static let format = "tidings-watches"
    static let version = 1

    let watches: [Watch]

    enum CodingKeys: String, CodingKey {
        case format, version, watches
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.format, forKey: .format)
        try container.encode(Self.version, forKey: .version)
        try container.encode(watches.map(Entry.init), forKey: .watches)
    }

    private struct Entry: Encodable {
        let watch: Watch

        enum CodingKeys: String, CodingKey {
            case watch, paused
            case withheldHeaders = "withheld_headers"
            case withheldVersionHeaders = "withheld_version_headers"
        }

        enum WatchKeys: String, CodingKey {
            case url, name, extract, notify
            case intervalSeconds = "interval_seconds"
            case maxIntervalSeconds = "max_interval_seconds"
            case versionURL = "version_url"
            case versionPointer = "version_pointer"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var body = container.nestedContainer(keyedBy: WatchKeys.self, forKey: .watch)
            try body.encode(watch.url, forKey: .url)
            try body.encode(watch.name, forKey: .name)
            try body.encode(watch.intervalSeconds, forKey: .intervalSeconds)
            // A maximum equal to the interval is the default; left out, it
            // keeps following the interval after the import.
            if watch.maxIntervalSeconds != watch.intervalSeconds {
                try body.encode(watch.maxIntervalSeconds, forKey: .maxIntervalSeconds)
            }
            try body.encodeIfPresent(watch.versionURL, forKey: .versionURL)
            try body.encodeIfPresent(watch.versionPointer, forKey: .versionPointer)
            try body.encodeIfPresent(watch.extract, forKey: .extract)
            try body.encode(watch.notify.rawValue, forKey: .notify)
            try container.encode(watch.paused, forKey: .paused)
            try container.encode(watch.headerNames, forKey: .withheldHeaders)
            try container.encode(watch.versionHeaderNames, forKey: .withheldVersionHeaders)
        }
    }
}
