import Foundation
import TidingsDomain

/// What one check of a target found, ready to be written.
struct CheckOutcome: Sendable {
    enum Summary: String, Sendable {
        case notModified = "not_modified"
        case versionUnchanged = "version_unchanged"
        case fetched
        case failed
    }

    let target: ClaimedTarget
    var record: TargetCheckRecord
    var watches: [WatchCheckRecord]
    var summary: Summary
    /// The check never ran to the end (shutdown): nothing may be written.
    var abandoned = false

    var isEventful: Bool {
        watches.contains(where: \.isEventful)
    }

    /// The bytes of extracted text this outcome holds until written.
    var contentBytes: Int {
        watches.reduce(0) { total, watch in
            guard case .content(let content) = watch.kind else { return total }
            return total + content.snapshot.utf8.count
        }
    }
}
