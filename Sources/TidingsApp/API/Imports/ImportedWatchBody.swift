import TidingsDomain
import TidingsHTTPServer

/// One entry of Tidings' export format: `{"watch": <POST /v1/watches
/// body>, "paused": bool, "withheld_headers": [names],
/// "withheld_version_headers": [names]}`. Every other format is turned into
/// this shape first, so every import is validated as a create is.
///
/// Header values are write-only, so an export lists only the names it
/// withheld; an entry naming one that `watch` does not supply again is
/// refused, since the watch would fetch without it.
struct ImportedWatchBody: Decodable {
    let watch: CreateWatchBody
    let paused: Bool

    enum CodingKeys: String, CodingKey {
        case watch, paused
        case withheldHeaders = "withheld_headers"
        case withheldVersionHeaders = "withheld_version_headers"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        watch = try container.decode(CreateWatchBody.self, forKey: .watch)
        paused = try container.decodeUnlessAbsent(Bool.self, forKey: .paused) ?? false
        let withheld = try container.decodeUnlessAbsent([String].self, forKey: .withheldHeaders) ?? []
        if let missing = withheld.first(where: { watch.headers.fields[$0.lowercased()] == nil }) {
            throw container.fieldProblem(.withheldHeaders, Self.withheldMessage(missing, field: "watch.headers"))
        }
        let withheldVersion = try container.decodeUnlessAbsent([String].self, forKey: .withheldVersionHeaders) ?? []
        let versionHeaders = watch.versionCheck?.headers ?? .none
        if let missing = withheldVersion.first(where: { versionHeaders.fields[$0.lowercased()] == nil }) {
            throw container.fieldProblem(.withheldVersionHeaders, Self.withheldMessage(missing, field: "watch.version_headers"))
        }
    }

    private static func withheldMessage(_ name: String, field: String) -> String {
        "the value of header \(name) is not exported (header values are write-only); give it in \(field), or import with skip_rejected=true"
    }
}
