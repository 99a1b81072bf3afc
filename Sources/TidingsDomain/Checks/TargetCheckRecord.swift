package import FoundationEssentials

/// What one check of a target writes to the target row. Validators and the
/// version are stored only together with the content they describe.
package struct TargetCheckRecord: Sendable {
    package enum Stored<Value: Sendable>: Sendable {
        /// The stored value still describes the stored content (304, version unchanged).
        case keep
        case replace(Value)
    }

    package let targetID: UUID
    package var checkedAt: Date
    package var nextCheckAt: Date
    package var httpStatus: Int?
    /// Nil when the fetch itself worked (a single watch may still have failed).
    package var error: String?
    package var validators: Stored<(etag: String?, lastModified: String?)>
    package var version: Stored<String?>
    /// SHA-256 of a full body, stored only when every watch stored what it
    /// extracted from that body (the rule of the validators).
    package var bodySHA256: Stored<String?>
    /// Requests sent, 304 answers and wire bytes of this check.
    package var requests: Int
    package var notModified: Int
    package var bytesReceived: Int
    package var bytesSaved: Int
    /// Wire size of a full response received by this check.
    package var fullBodySize: Int?
    /// The check fetched the page unconditionally: the every-Nth counter restarts.
    package var wasUnconditional: Bool
    /// Some watch's content differs from its stored hash: the target's
    /// `content_changed_at` becomes `checkedAt` and its back-off restarts.
    package var contentChanged: Bool
    /// The target stays held by the poller that writes this (decision
    /// 0057), which then reads it as it falls due instead of claiming it;
    /// false gives it back to every poller.
    package var keepsHold: Bool
    /// The check ran under this poller's hold between checks, not under a
    /// lease it claimed: written only if that hold still stands, so a
    /// check of a kept copy (decision 0062) is dropped once anything else
    /// wrote the target or its watches.
    package var underHold: Bool

    package init(targetID: UUID, checkedAt: Date, nextCheckAt: Date) {
        self.targetID = targetID
        self.checkedAt = checkedAt
        self.nextCheckAt = nextCheckAt
        self.validators = .keep
        self.version = .keep
        self.bodySHA256 = .keep
        self.requests = 0
        self.notModified = 0
        self.bytesReceived = 0
        self.bytesSaved = 0
        self.wasUnconditional = false
        self.contentChanged = false
        self.keepsHold = true
        self.underHold = false
    }
}
