/// What `TidingsClient.checkWatch(id:)` found, with the watch afterwards.
public struct CheckOutcome: Sendable, Hashable, Codable {
    /// What the check found.
    public let result: CheckResult
    /// The change it recorded, if it found one.
    public let changeID: String?
    /// Why it failed, if it did.
    public let error: String?
    /// The watch after the check.
    public let watch: Watch

    private enum CodingKeys: String, CodingKey {
        case result, error, watch
        case changeID = "change_id"
    }
}
