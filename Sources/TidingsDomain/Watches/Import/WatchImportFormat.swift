import TidingsCompression

/// The files `POST /v1/imports` reads (decision 0055).
package enum WatchImportFormat: String, Sendable, CaseIterable {
    /// changedetection.io's `url-watches.json`, or its backup zip holding it.
    case changedetection
    /// urlwatch's `urls.yaml`: YAML documents, one job each.
    case urlwatch
    /// An OPML subscription list: each `xmlUrl` is a watch.
    case opml
    /// Tidings' own export (`GET /v1/watches/export`).
    case tidings

    /// The format a body looks like, or nil. The content type decides
    /// only between the text formats that look alike; the first bytes
    /// decide the rest, so a file sent as `application/octet-stream` is read.
    package static func sniff(_ body: [UInt8], contentType: String?) -> WatchImportFormat? {
        if ZipArchive.looksLikeZip(body) { return .changedetection }
        let text = body.drop { $0 == 0xEF || $0 == 0xBB || $0 == 0xBF || isWhitespace($0) }
        guard let first = text.first else { return nil }
        if first == UInt8(ascii: "{") {
            // Both JSON formats are objects; each names itself in its first bytes' keys.
            let head = String(decoding: text.prefix(4096), as: UTF8.self)
            if head.contains("\"tidings-watches\"") { return .tidings }
            if head.contains("\"watching\"") || head.contains("\"settings\"") { return .changedetection }
            return nil
        }
        if first == UInt8(ascii: "<") {
            let head = String(decoding: text.prefix(4096), as: UTF8.self).lowercased()
            return head.contains("<opml") ? .opml : nil
        }
        let type = contentType?.lowercased() ?? ""
        if type.contains("yaml") { return .urlwatch }
        let head = String(decoding: text.prefix(4096), as: UTF8.self)
        return head.contains("url:") || head.contains("command:") || head.hasPrefix("---") ? .urlwatch : nil
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
