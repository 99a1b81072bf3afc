/// What one check of a watch found. A struct rather than an enum, so that
/// a result a newer server adds decodes too.
public struct CheckResult: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The result's name in the API.
    public let rawValue: String

    /// Wraps a result name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The first content was recorded; nothing is announced.
    public static let baseline = CheckResult(rawValue: "baseline")
    /// A change was recorded and announced.
    public static let changed = CheckResult(rawValue: "changed")
    /// The content was the same.
    public static let unchanged = CheckResult(rawValue: "unchanged")
    /// The server answered 304 Not Modified.
    public static let notModified = CheckResult(rawValue: "not_modified")
    /// The version endpoint had not moved, so the page was not fetched.
    public static let versionUnchanged = CheckResult(rawValue: "version_unchanged")
    /// The fetch or the extraction failed.
    public static let failed = CheckResult(rawValue: "failed")

    /// The result's name.
    public var description: String { rawValue }
}
