/// Which APNs a push app's builds talk to: production (App Store and
/// TestFlight builds) or sandbox (development builds). The one type for it:
/// the domain stores it with the push app (`environment` column), the API
/// reads it from push-app bodies, the APNs client picks its endpoint by it.
package enum APNsEnvironment: String, Sendable, CaseIterable {
    case production
    case sandbox

    /// Apple's endpoint for this environment.
    package var defaultBaseURL: String {
        switch self {
        case .production: "https://api.push.apple.com"
        case .sandbox: "https://api.sandbox.push.apple.com"
        }
    }
}
