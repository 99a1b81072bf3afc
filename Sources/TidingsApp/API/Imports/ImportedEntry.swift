import FoundationEssentials
import TidingsHTTPServer

/// An entry decoded without stopping the file: a problem in one entry is
/// that entry's reason, named by its field within the entry.
struct ImportedEntry: Decodable {
    let outcome: Result<ImportedWatchBody, HTTPError>

    init(from decoder: any Decoder) throws {
        do {
            outcome = .success(try ImportedWatchBody(from: decoder))
        } catch let error as DecodingError {
            var problem = JSONDecodingProblem.httpError(for: error, body: Data())
            // "watches[3].watch.url: ..." -> "watch.url: ...".
            let prefix = JSONDecodingProblem.fieldPath(decoder.codingPath) + "."
            if !decoder.codingPath.isEmpty, let detail = problem.detail, detail.hasPrefix(prefix) {
                problem.detail = String(detail.dropFirst(prefix.count))
            }
            outcome = .failure(problem)
        }
    }

    /// Decodes one entry's JSON on its own.
    static func decode(_ json: String) -> Result<ImportedWatchBody, HTTPError> {
        let bytes = Array(json.utf8)
        let entry: ImportedEntry
        do {
            entry = try decoder.decode(ImportedEntry.self, from: Data(bytes))
        } catch {
            return .failure(HTTPError(.unprocessableContent, detail: "the entry is not valid JSON"))
        }
        // Only on text the decoder accepted (its nesting bounded).
        if let repeated = JSONDuplicateMembers.firstRepeated(in: bytes) {
            return .failure(HTTPError.field(repeated, "appears more than once"))
        }
        return entry.outcome
    }

    static let decoder = JSONDecoder()
}
