import FoundationEssentials

/// What one check of a target writes to the target row. Validators and the
/// version are stored only together with the content they describe.
public struct TargetCheckRecord: Sendable {
    public enum Stored<Value: Sendable>: Sendable {
        /// The stored value still describes the stored content (304, version unchanged).
        case keep
        case replace(Value)
    }

    public let targetID: UUID
    public var checkedAt: Date
    public var nextCheckAt: Date
    public var httpStatus: Int?
    /// Nil when the fetch itself worked (a single watch may still have failed).
    public var error: String?
    public var validators: Stored<(etag: String?, lastModified: String?)>
    public var version: Stored<String?>
    /// Requests sent, 304 answers and wire bytes of this check.
    public var requests: Int
    public var notModified: Int
    public var bytesReceived: Int
    public var bytesSaved: Int
    /// Wire size of a full response received by this check.
    public var fullBodySize: Int?
    /// The check fetched the page unconditionally: the every-Nth counter restarts.
    public var wasUnconditional: Bool

    public init(targetID: UUID, checkedAt: Date, nextCheckAt: Date) {
        self.targetID = targetID
        self.checkedAt = checkedAt
        self.nextCheckAt = nextCheckAt
        self.validators = .keep
        self.version = .keep
        self.requests = 0
        self.notModified = 0
        self.bytesReceived = 0
        self.bytesSaved = 0
        self.wasUnconditional = false
    }
}
