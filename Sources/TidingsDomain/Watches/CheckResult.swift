/// What the watch's last check found; written by the poller.
package enum CheckResult: String, Sendable {
    /// First successful check: the content hash was recorded, nothing emitted.
    case baseline
    case changed
    case unchanged
    /// The server answered 304 to a conditional request.
    case notModified = "not_modified"
    /// The version endpoint reported the same version; the page was not fetched.
    case versionUnchanged = "version_unchanged"
    case failed
}
