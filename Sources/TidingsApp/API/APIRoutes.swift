import TidingsDomain
import TidingsHTTPClient
import TidingsHTTPServer
import TidingsPostgres

/// Every `/v1` endpoint, with the stores and services they share.
struct APIRoutes {
    let database: PostgresClient
    let secrets: StoredSecrets
    let adminToken: String?
    let configuration: Configuration
    let credentialCache: CredentialCache?
    let checks: any TargetCheckRunner

    func register(on router: inout Router) {
        let accounts = AccountStore(database: database)
        let authenticator = Authenticator(adminToken: adminToken, accounts: accounts, cache: credentialCache)
        let addresses = TargetAddressPolicy(ssrfGuard: SSRFGuard(allowPrivateTargets: configuration.allowPrivateTargets))
        AccountsController(accounts: accounts, authenticator: authenticator).register(on: &router)
        DevicesController(devices: DeviceStore(database: database), authenticator: authenticator).register(on: &router)
        WatchesController(
            watches: WatchStore(database: database, secrets: secrets),
            authenticator: authenticator,
            intervals: IntervalBounds(configuration: configuration),
            addresses: addresses
        ).register(on: &router)
        ChangesController(changes: ChangeStore(database: database), authenticator: authenticator).register(on: &router)
        WatchCheckController(watches: WatchStore(database: database, secrets: secrets), authenticator: authenticator, checks: checks)
            .register(on: &router)
        BadgeController(badges: BadgeStore(database: database), authenticator: authenticator).register(on: &router)
        let webhooks = WebhookStore(database: database, secrets: secrets)
        let deliveries = DeliveryStore(database: database)
        for scope in [WebhookScope.user, .global] {
            WebhooksController(scope: scope, webhooks: webhooks, authenticator: authenticator, addresses: addresses).register(on: &router)
            DeliveriesController(scope: scope, deliveries: deliveries, authenticator: authenticator).register(on: &router)
        }
    }
}
