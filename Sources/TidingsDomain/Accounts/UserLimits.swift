/// A maximum per `UserResource`: the deployment's defaults
/// (`TIDINGS_MAX_*_PER_USER`), or a user's effective limits.
package struct UserLimits: Sendable, Equatable {
    package var watches: Int
    package var webhooks: Int
    package var devices: Int
    package var apiKeys: Int

    /// 1,000 watches: far more than a person follows by hand, few enough
    /// that one tenant cannot make the poller's work its own. 20 webhooks:
    /// every event goes to each of them, so this bounds one tenant's fan-out.
    /// 100 devices: every phone, tablet and browser a person or a small team
    /// registers, with room for reinstalls. 10 active keys: one per machine
    /// or CI job; revoked keys do not count.
    package static let defaults = UserLimits(watches: 1000, webhooks: 20, devices: 100, apiKeys: 10)

    /// The bounds of any limit, the deployment's or a user's: 0 (a user
    /// who may create no more) to the largest count configuration accepts.
    package static let range = 0...1_000_000

    package init(watches: Int, webhooks: Int, devices: Int, apiKeys: Int) {
        self.watches = watches
        self.webhooks = webhooks
        self.devices = devices
        self.apiKeys = apiKeys
    }

    package subscript(resource: UserResource) -> Int {
        get {
            switch resource {
            case .watches: watches
            case .webhooks: webhooks
            case .devices: devices
            case .apiKeys: apiKeys
            }
        }
        set {
            switch resource {
            case .watches: watches = newValue
            case .webhooks: webhooks = newValue
            case .devices: devices = newValue
            case .apiKeys: apiKeys = newValue
            }
        }
    }

    /// These limits with a user's own ones in place of the defaults.
    package func overridden(by overrides: [UserResource: Int]) -> UserLimits {
        var limits = self
        for (resource, maximum) in overrides { limits[resource] = maximum }
        return limits
    }
}
