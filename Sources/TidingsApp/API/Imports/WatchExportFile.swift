import TidingsHTTPServer

/// The export format as read back: its entries decoded one by one.
struct WatchExportFile: Decodable {
    let entries: [ImportedEntry]

    enum CodingKeys: String, CodingKey {
        case format, version, watches
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard try container.decode(String.self, forKey: .format) == WatchExportDocument.format else {
            throw container.fieldProblem(.format, "must be \"\(WatchExportDocument.format)\"")
        }
        guard try container.decode(Int.self, forKey: .version) == WatchExportDocument.version else {
            throw container.fieldProblem(.version, "must be \(WatchExportDocument.version)")
        }
        entries = try container.decode([ImportedEntry].self, forKey: .watches)
    }
}
