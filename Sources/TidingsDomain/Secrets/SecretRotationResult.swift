/// What one re-sealing run changed, row by row.
package struct SecretRotationResult: Sendable, Equatable, CustomStringConvertible {
    /// Webhook rows whose secret or previous secret was re-sealed.
    package var webhooks = 0
    /// Target rows whose header values (and fingerprint) were re-sealed.
    package var targets = 0
    /// Plain targets found to duplicate a sealed one (same URL, headers and
    /// version check): their watches moved to it and they were deleted.
    package var mergedTargets = 0
    /// Push apps whose private key was re-sealed.
    package var pushApps = 0
    /// Web devices whose `keys.auth` was re-sealed.
    package var devices = 0
    /// Rows of `sealed_keys` re-sealed.
    package var keys = 0
    /// Rows still to do when the run stopped (kept locked by others, or
    /// written meanwhile); 0 when it finished.
    package var remaining = 0

    package init() {}

    package var total: Int {
        webhooks + targets + mergedTargets + pushApps + devices + keys
    }

    package var description: String {
        "\(total) rows changed: \(webhooks) webhooks, \(targets) targets (\(mergedTargets) more merged into an equal target), \(pushApps) push apps, \(devices) web devices, \(keys) stored keys"
            + (remaining > 0 ? "; \(remaining) rows left" : "")
    }
}
