import TidingsDomain

/// The answer of `POST /v1/imports`; the dashboard's import page reads it.
struct ImportAnswer: Encodable {
    struct Rejected: Encodable {
        let index: Int
        let url: String?
        let reason: String
    }

    let dryRun: Bool
    let format: WatchImportFormat
    let created: [Watch]
    let existing: Int
    let rejected: [Rejected]

    enum CodingKeys: String, CodingKey {
        case format, created, existing, rejected
        case dryRun = "dry_run"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(dryRun, forKey: .dryRun)
        try container.encode(format.rawValue, forKey: .format)
        try container.encode(created.map(WatchRepresentation.init), forKey: .created)
        try container.encode(existing, forKey: .existing)
        try container.encode(rejected, forKey: .rejected)
    }
}

extension ImportAnswer.Rejected {
    enum CodingKeys: String, CodingKey {
        case index, url, reason
    }

    /// `url` is always present, null when the entry gave none.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(index, forKey: .index)
        try container.encode(url, forKey: .url)
        try container.encode(reason, forKey: .reason)
    }
}
