import TidingsDomain
import TidingsHTTPClient
import TidingsHTTPServer
import TidingsObservability
import TidingsPoller
import TidingsPostgres

/// Every `/v1` endpoint, with the stores and services they share.
struct APIRoutes {
    let database: PostgresClient
    let secrets: StoredSecrets
    let adminToken: String?
    let configuration: Configuration
    let credentialCache: CredentialCache?
    let checks: any TargetCheckRunner
    let streams: EventStreamHub

    /// Stream tokens one user may take (docs/LIMITS.md): enough for a page
    /// that reconnects every second, not for filling the table.
    static let streamTokenRate = RatePolicy(count: 60, per: .seconds(60))

    func register(on router: inout Router) {
        // In this process's memory: decision 0022.
        let checkRates = RateLimitedAction(
            action: "checks",
            subject: "watch",
            callerLimitName: "checks_per_user",
            subjectLimitName: "checks_per_watch",
            limiter: RateLimiter(perCaller: configuration.checkNowUserRate, perSubject: configuration.checkNowRate)
        )
        let replayRates = DeliveriesController.Rates(
            tests: RateLimitedAction(
                action: "test events",
                subject: "webhook",
                callerLimitName: "tests_per_user",
                subjectLimitName: "tests_per_webhook",
                limiter: RateLimiter(perCaller: configuration.webhookTestUserRate, perSubject: configuration.webhookTestRate)
            ),
            retries: RateLimitedAction(
                action: "retries",
                subject: "delivery",
                callerLimitName: "retries_per_user",
                subjectLimitName: "retries_per_delivery",
                limiter: RateLimiter(perCaller: configuration.deliveryRetryUserRate, perSubject: configuration.deliveryRetryRate)
            ),
            recoveries: RateLimitedAction(
                action: "recoveries",
                subject: "webhook",
                callerLimitName: "recoveries_per_user",
                subjectLimitName: "recoveries_per_webhook",
                limiter: RateLimiter(perCaller: configuration.webhookRecoverUserRate, perSubject: configuration.webhookRecoverRate)
            )
        )
        let accounts = AccountStore(database: database)
        let authenticator = Authenticator(
            adminToken: adminToken, accounts: accounts, cache: credentialCache,
            failures: AuthenticationFailureLimiter(policy: configuration.credentialFailureRate)
        )
        let addresses = TargetAddressPolicy(ssrfGuard: SSRFGuard(allowPrivateTargets: configuration.allowPrivateTargets))
        AccountsController(accounts: accounts, authenticator: authenticator, defaultLimits: configuration.userLimits).register(on: &router)
        DevicesController(
            devices: DeviceStore(database: database, secrets: secrets), pushes: PushStore(database: database),
            authenticator: authenticator, addresses: addresses
        ).register(on: &router)
        WebPushController(apps: PushAppStore(database: database, secrets: secrets), authenticator: authenticator).register(on: &router)
        WatchesController(
            watches: WatchStore(database: database, secrets: secrets, maxRulesPerTarget: configuration.maxRulesPerTarget),
            authenticator: authenticator,
            intervals: IntervalBounds(configuration: configuration),
            addresses: addresses,
            checkRates: checkRates
        ).register(on: &router)
        ImportsController(
            watches: WatchStore(database: database, secrets: secrets, maxRulesPerTarget: configuration.maxRulesPerTarget),
            authenticator: authenticator,
            intervals: IntervalBounds(configuration: configuration),
            addresses: addresses,
            checkRates: checkRates
        ).register(on: &router)
        WatchPreviewController(
            authenticator: authenticator,
            addresses: addresses,
            previewer: PagePreviewer(
                clientConfiguration: configuration.pollerHTTPClientConfiguration,
                limits: configuration.pollerConfiguration.extractionLimits,
                logger: Logger(label: "tidings.preview", logLevel: configuration.logLevel)
            ),
            rates: RateLimitedAction(
                action: "previews",
                subject: "user",
                callerLimitName: "previews_per_user",
                subjectLimitName: "previews_per_user",
                limiter: RateLimiter(perCaller: configuration.checkNowUserRate, perSubject: configuration.checkNowUserRate)
            )
        ).register(on: &router)
        let badges = BadgeStore(database: database)
        ChangesController(changes: ChangeStore(database: database), authenticator: authenticator).register(on: &router)
        FeedController(feed: SyncFeed(changes: ChangeStore(database: database), badges: badges), authenticator: authenticator)
            .register(on: &router)
        WatchCheckController(
            watches: WatchStore(database: database, secrets: secrets), authenticator: authenticator, checks: checks, rates: checkRates
        )
        .register(on: &router)
        BadgeController(badges: badges, authenticator: authenticator).register(on: &router)
        EventsController(
            hub: streams,
            events: EventStore(database: database),
            tokens: StreamTokenStore(database: database),
            authenticator: authenticator,
            tokenRates: RateLimitedAction(
                action: "stream tokens",
                subject: "user",
                callerLimitName: "stream_tokens_per_user",
                subjectLimitName: "stream_tokens_per_user",
                limiter: RateLimiter(perCaller: Self.streamTokenRate, perSubject: Self.streamTokenRate)
            )
        ).register(on: &router)
        PushAppsController(apps: PushAppStore(database: database, secrets: secrets), authenticator: authenticator).register(on: &router)
        let webhooks = WebhookStore(database: database, secrets: secrets)
        let deliveries = DeliveryStore(database: database)
        for scope in [WebhookScope.user, .global] {
            WebhooksController(scope: scope, webhooks: webhooks, authenticator: authenticator, addresses: addresses).register(on: &router)
            DeliveriesController(scope: scope, deliveries: deliveries, authenticator: authenticator, rates: replayRates)
                .register(on: &router)
        }
    }
}
