@testable import TidingsDomain
import TidingsExtraction

/// The properties every import parser's entries hold, whatever the file:
/// numbered from 0 in order, within the entry limit, and each mapped
/// entry valid JSON (an object with a `watch` object) that the API can decode.
enum ImportEntriesCheck {
    static func verify(_ result: Result<[WatchImportEntry], WatchImportError>, _ input: FuzzInput) {
        guard case .success(let entries) = result else { return }
        check(entries.count <= WatchImportLimits.maximumEntries, "\(entries.count) entries")
        for (position, entry) in entries.enumerated() {
            check(entry.index == position, "entry \(position) has index \(entry.index)")
            guard case .watch(let json) = entry.content else { continue }
            guard case .object(let members)? = try? JSONValue(parsing: Array(json.utf8)), case .object? = members["watch"] else {
                check(false, "entry \(position) is not an entry object: \(json.debugDescription)")
                return
            }
        }
    }
}
