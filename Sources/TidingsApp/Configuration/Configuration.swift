import Foundation
package import TidingsCrypto
import TidingsDispatcher
package import TidingsDomain
import TidingsExtraction
import TidingsHTTPClient
package import TidingsHTTPServer
import TidingsIP
package import TidingsObservability
import TidingsPoller
import TidingsPush
import TidingsSynchronization

/// Everything Tidings can be told at start-up. Built from the environment
/// only in the entry point; everything else receives this value.
package struct Configuration: Sendable {
    package var databaseURL: String?
    package var dataDirectory: String = "./.tidings"
    package var listenHost: String = "127.0.0.1"
    package var listenPort: Int = 8080
    package var adminToken: String?
    /// Seals stored secrets (`TIDINGS_SECRET_KEY`). Required with
    /// `databaseURL`; without one the private-database mode keeps a
    /// generated key in the data folder (`SecretKeyFile`).
    package var secretKey: SecretKey?
    /// Keys that still open values sealed before a rotation
    /// (`TIDINGS_PREVIOUS_SECRET_KEYS`); they never seal.
    package var previousSecretKeys: [SecretKey] = []
    /// When set, `GET /metrics` wants `Authorization: Bearer` with it.
    package var metricsToken: String?
    /// When set, `/metrics` is served only there, on a listener of its own
    /// (with `/healthz`), and no longer on `TIDINGS_LISTEN`.
    package var metricsListen: (host: String, port: Int)?
    package var allowPrivateTargets = false
    package var logLevel: LogLevel = .info
    /// Handlers block their thread on PostgreSQL, so they run on handler
    /// threads while two epoll threads do the connections' I/O: no request
    /// waits behind another's query, and idle connections and event
    /// streams hold no thread (docs/decisions/0039). `TIDINGS_HTTP_THREADS`
    /// 0 gives a thread per connection instead (0005), without streams.
    package var httpThreading: HTTPServerThreading = .suspending(pollingThreads: 2, handlerThreads: 64)
    /// With a pool (`TIDINGS_HTTP_THREADS` > 0), this many threads run the
    /// handlers while the pool only polls (`TIDINGS_HTTP_HANDLER_THREADS`;
    /// 0: handlers run on the pool's threads). Needed for streams.
    package var httpHandlerThreads = 64
    package var httpConnectionLimit = 1024
    package var httpIdleTimeout: Duration = .seconds(30)
    package var httpRequestTimeout: Duration = .seconds(30)
    package var httpResponseTimeout: Duration = .seconds(30)
    package var httpConnectionsPerClient = 64
    package var trustedProxies = TrustedProxies()
    package var maxBodySize = 1 << 20
    /// The body limit of `POST /v1/imports`.
    package var maxImportSize = 8 << 20
    package var maxHeaderBytes = HTTPServerConfiguration().maxHeaderBytes
    package var databasePoolSize = 8
    package var databaseAcquireTimeout: Duration = .seconds(5)
    package var shutdownTimeout: Duration = .seconds(10)
    package var outboundConnectTimeout: Duration = .seconds(10)
    package var outboundTimeout: Duration = .seconds(30)
    package var outboundMaxResponseSize = 5 << 20
    /// Bounds of a watch's `interval_seconds`.
    package var minimumInterval: Duration = .seconds(30)
    package var maximumInterval: Duration = .seconds(86_400)
    /// `max_interval_seconds` of a watch that sets none (never below its
    /// interval); nil: the watch's interval, so schedules stay fixed.
    package var defaultMaximumInterval: Duration?
    package var resourcesDirectory: String?
    /// Serve the dashboard at `/` and `/ui/` (`TIDINGS_DASHBOARD`).
    package var dashboardEnabled = true
    /// How long a new badge.updated delivery waits so that a burst of
    /// count changes goes out as one delivery with the final number.
    package var badgeCoalescingWindow: Duration = .seconds(2)
    /// How long a verified API key is served from memory; zero turns the
    /// cache off. Revocations still apply at once (see CredentialCache).
    package var credentialCacheLifetime: Duration = .seconds(60)
    /// Event streams (`GET /v1/events`) this process holds at once; nil:
    /// three quarters of `httpConnectionLimit`, so streams never take the
    /// connections every other request needs.
    package var maxStreams: Int?
    /// Event streams of one user in this process.
    package var maxStreamsPerUser = 10
    /// A comment on a quiet stream this often (15 s; set shorter by tests).
    package var streamHeartbeat: Duration = .seconds(15)
    /// Checks in flight; 0 turns the background poller off.
    package var pollConcurrency = 256
    /// Checks in flight charged to one user; nil: three quarters of
    /// `pollConcurrency`.
    package var userPollConcurrency: Int?
    package var hostConcurrency = 2
    package var hostMinimumGap: Duration = .zero
    /// Longest a Retry-After holds the host that sent it (`TIDINGS_MAX_RETRY_AFTER`).
    package var maxRetryAfter: Duration = .seconds(3600)
    /// Distinct extraction rules one target may carry (`TIDINGS_MAX_RULES_PER_TARGET`).
    package var maxRulesPerTarget = WatchStore.defaultMaxRulesPerTarget
    /// The poller's response cap; nil: `outboundMaxResponseSize`.
    package var pollerMaxResponseSize: Int?
    package var unconditionalEvery = 24
    package var failureThreshold = 3
    /// Threads running extraction: one per core by default (it is CPU work).
    package var extractionThreads = max(ProcessInfo.processInfo.activeProcessorCount, 1)
    package var extractionTimeout: Duration = ExtractionLimits.default.timeLimit
    package var extractionMaxNodes = ExtractionLimits.default.documentNodeLimit
    /// How long `POST /v1/watches/{id}/check` waits before answering 504.
    package var checkNowTimeout: Duration = .seconds(20)
    /// Webhook delivery: see `Configuration+Webhooks.swift`.
    package var webhookTimeout: Duration = .seconds(15)
    package var webhookRetrySchedule: [Duration] = RetryPolicy.defaultSchedule
    package var webhookDisableAfter: Duration = .seconds(5 * 86_400)
    package var webhookConcurrency = 4
    package var webhookHostConcurrency = 256
    /// Webhook requests this process sends at once (tests set it small).
    package var webhookMaxInFlight = DispatcherConfiguration().maxInFlight
    /// Nil: 3/4 of `webhookMaxInFlight`.
    package var userWebhookConcurrency: Int?
    /// Direct push: see `Configuration+Push.swift`.
    package var apnsURL: String?
    package var fcmURL: String?
    package var pushCAFile: String?
    package var pushTimeout: Duration = .seconds(30)
    package var pushRetrySchedule: [Duration] = PushDispatcherConfiguration().retrySchedule
    package var pushCoalescingWindow: Duration = .milliseconds(50)
    package var pushSyncBudget = RatePolicy(count: 3, per: .seconds(3600))
    /// Web Push: see `Configuration+WebPush.swift`.
    package var vapidPrivateKey: P256KeyPair?
    package var vapidSubject: String?
    /// Pushes this process sends at once; 0 sends none (tests of the queue).
    package var pushMaxInFlight = PushDispatcherConfiguration().maxInFlight
    package var eventRetention: Duration = .seconds(30 * 86_400)
    /// What one user may own (`TIDINGS_MAX_*_PER_USER`); an admin can give
    /// a user other limits (`PATCH /v1/users/{id}`). See `UserLimits.defaults`.
    package var userLimits = UserLimits.defaults
    /// `POST /v1/watches/{id}/check`, per watch and per user: a check is
    /// real outbound traffic, so a burst of two and one every 10 s per watch
    /// (a person checking again at once is fine, a loop is not), and 30 a
    /// minute for all of a user's watches together.
    package var checkNowRate = RatePolicy(count: 2, per: .seconds(20))
    package var checkNowUserRate = RatePolicy(count: 30, per: .seconds(60))
    /// `POST /v1/webhooks/{id}/test` (and the admin's global one), per
    /// webhook and per user: the same reasoning for the receiver's sake.
    package var webhookTestRate = RatePolicy(count: 2, per: .seconds(20))
    package var webhookTestUserRate = RatePolicy(count: 30, per: .seconds(60))
    /// `POST /v1/deliveries/{id}/retry` (and the admin's), per delivery and
    /// per user: each retry is a request to the receiver and an attempt
    /// row with up to 16 KiB of its answer, so a loop must not be free.
    package var deliveryRetryRate = RatePolicy(count: 2, per: .seconds(20))
    package var deliveryRetryUserRate = RatePolicy(count: 30, per: .seconds(60))
    /// `POST /v1/webhooks/{id}/recover` (and the admin's), per webhook and
    /// per user: one call can queue every failed delivery of a webhook.
    package var webhookRecoverRate = RatePolicy(count: 2, per: .seconds(60))
    package var webhookRecoverUserRate = RatePolicy(count: 10, per: .seconds(60))
    /// API keys and stream tokens the database did not know, per client
    /// address (an IPv6 /64): enough for a person retrying a mistyped key,
    /// not for making the database look up keys as fast as a flood sends
    /// them (see `AuthenticationFailureLimiter`).
    package var credentialFailureRate = RatePolicy(count: 30, per: .seconds(60))

    package init() {}

    /// Reads every `TIDINGS_*` variable; the first invalid one stops start-up
    /// with an error naming it.
    package init(environment: [String: String]) throws(ConfigurationError) {
        let reader = EnvironmentReader(environment: environment)
        databaseURL = reader.string("TIDINGS_DATABASE_URL")
        dataDirectory = reader.string("TIDINGS_DATA_DIR") ?? dataDirectory
        if let listen = try reader.parsed("TIDINGS_LISTEN", expected: "host:port, e.g. 127.0.0.1:8080", ValueParsers.listenAddress) {
            (listenHost, listenPort) = listen
        }
        adminToken = reader.string("TIDINGS_ADMIN_TOKEN")
        if let token = adminToken, token.count < 32 {
            throw ConfigurationError(
                variable: "TIDINGS_ADMIN_TOKEN", message: "must be at least 32 characters long (it guards the admin API)")
        }
        secretKey = try reader.secretKeys("TIDINGS_SECRET_KEY", atMost: 1).first
        previousSecretKeys = try reader.secretKeys("TIDINGS_PREVIOUS_SECRET_KEYS", atMost: 10)
        if databaseURL != nil && secretKey == nil {
            throw ConfigurationError.missingSecretKey
        }
        metricsToken = reader.string("TIDINGS_METRICS_TOKEN")
        if let token = metricsToken, token.count < 32 {
            throw ConfigurationError(variable: "TIDINGS_METRICS_TOKEN", message: "must be at least 32 characters long (it guards /metrics)")
        }
        metricsListen = try reader.parsed("TIDINGS_METRICS_LISTEN", expected: "host:port, e.g. 127.0.0.1:9090", ValueParsers.listenAddress)
            .map { (host: $0.0, port: $0.1) }
        allowPrivateTargets =
            try reader.parsed("TIDINGS_ALLOW_PRIVATE_TARGETS", expected: "true or false", ValueParsers.bool) ?? allowPrivateTargets
        logLevel =
            try reader.parsed("TIDINGS_LOG_LEVEL", expected: "one of trace, debug, info, notice, warning, error, critical") {
                LogLevel(rawValue: $0.lowercased())
            } ?? logLevel
        httpThreading =
            try reader.parsed(
                "TIDINGS_HTTP_THREADS",
                expected: "0 (a thread per connection) or a positive number of pool threads",
                ValueParsers.httpThreading
            ) ?? httpThreading
        httpHandlerThreads =
            try reader.parsed(
                "TIDINGS_HTTP_HANDLER_THREADS",
                expected: "0 (handlers on the polling threads) or a positive number of handler threads up to 1024",
                ValueParsers.httpHandlerThreads
            ) ?? httpHandlerThreads
        switch httpThreading {
        case .threadPerConnection:
            break
        case .pool(let threads), .suspending(let threads, _):
            httpThreading =
                httpHandlerThreads > 0
                ? .suspending(pollingThreads: threads, handlerThreads: httpHandlerThreads) : .pool(threads: threads)
        }
        httpConnectionLimit =
            try reader.parsed("TIDINGS_HTTP_CONNECTION_LIMIT", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? httpConnectionLimit
        httpIdleTimeout = try reader.duration("TIDINGS_HTTP_IDLE_TIMEOUT") ?? httpIdleTimeout
        httpRequestTimeout = try reader.duration("TIDINGS_HTTP_REQUEST_TIMEOUT") ?? httpRequestTimeout
        if httpRequestTimeout < .seconds(1) {
            throw ConfigurationError(variable: "TIDINGS_HTTP_REQUEST_TIMEOUT", message: "must be at least 1s")
        }
        httpResponseTimeout = try reader.duration("TIDINGS_HTTP_RESPONSE_TIMEOUT") ?? httpResponseTimeout
        if httpResponseTimeout < .seconds(1) {
            throw ConfigurationError(variable: "TIDINGS_HTTP_RESPONSE_TIMEOUT", message: "must be at least 1s")
        }
        httpConnectionsPerClient =
            try reader.parsed(
                "TIDINGS_HTTP_CONNECTIONS_PER_CLIENT",
                expected: "a positive integer",
                ValueParsers.positiveInteger
            ) ?? httpConnectionsPerClient
        trustedProxies =
            try reader.parsed(
                "TIDINGS_TRUSTED_PROXIES",
                expected:
                    "comma-separated IP addresses or CIDR networks such as 10.0.0.0/8,fd00::/8 (no host bits after the prefix, at most 100)",
                ValueParsers.networkList
            ).map(TrustedProxies.init) ?? trustedProxies
        maxBodySize = try reader.size("TIDINGS_MAX_BODY_SIZE") ?? maxBodySize
        maxImportSize = try reader.size("TIDINGS_MAX_IMPORT_SIZE") ?? maxImportSize
        maxHeaderBytes = try reader.size("TIDINGS_HTTP_MAX_HEADER_BYTES") ?? maxHeaderBytes
        if !(1024...(1 << 20)).contains(maxHeaderBytes) {
            throw ConfigurationError(variable: "TIDINGS_HTTP_MAX_HEADER_BYTES", message: "must be between 1KiB and 1MiB")
        }
        databasePoolSize =
            try reader.parsed("TIDINGS_DATABASE_POOL_SIZE", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? databasePoolSize
        databaseAcquireTimeout = try reader.duration("TIDINGS_DATABASE_ACQUIRE_TIMEOUT") ?? databaseAcquireTimeout
        shutdownTimeout = try reader.duration("TIDINGS_SHUTDOWN_TIMEOUT") ?? shutdownTimeout
        outboundConnectTimeout = try reader.duration("TIDINGS_OUTBOUND_CONNECT_TIMEOUT") ?? outboundConnectTimeout
        outboundTimeout = try reader.duration("TIDINGS_OUTBOUND_TIMEOUT") ?? outboundTimeout
        outboundMaxResponseSize = try reader.size("TIDINGS_OUTBOUND_MAX_RESPONSE_SIZE") ?? outboundMaxResponseSize
        minimumInterval = try reader.duration("TIDINGS_MIN_INTERVAL") ?? minimumInterval
        maximumInterval = try reader.duration("TIDINGS_MAX_INTERVAL") ?? maximumInterval
        if maximumInterval < minimumInterval {
            throw ConfigurationError(variable: "TIDINGS_MAX_INTERVAL", message: "must not be shorter than TIDINGS_MIN_INTERVAL")
        }
        defaultMaximumInterval = try reader.duration("TIDINGS_DEFAULT_MAX_INTERVAL") ?? defaultMaximumInterval
        if let defaultMaximumInterval, defaultMaximumInterval > maximumInterval {
            throw ConfigurationError(variable: "TIDINGS_DEFAULT_MAX_INTERVAL", message: "must not be longer than TIDINGS_MAX_INTERVAL")
        }
        resourcesDirectory = reader.string("TIDINGS_RESOURCES_DIR")
        dashboardEnabled = try reader.parsed("TIDINGS_DASHBOARD", expected: "true or false", ValueParsers.bool) ?? dashboardEnabled
        badgeCoalescingWindow = try reader.duration("TIDINGS_BADGE_COALESCE", allowZero: true) ?? badgeCoalescingWindow
        webhookTimeout = try reader.duration("TIDINGS_WEBHOOK_TIMEOUT") ?? webhookTimeout
        webhookRetrySchedule =
            try reader.parsed(
                "TIDINGS_WEBHOOK_RETRY_SCHEDULE",
                expected: "comma-separated durations such as 0s,5s,5m,30m (at most 50)",
                ValueParsers.durationList
            ) ?? webhookRetrySchedule
        webhookDisableAfter = try reader.duration("TIDINGS_WEBHOOK_DISABLE_AFTER") ?? webhookDisableAfter
        webhookConcurrency =
            try reader.parsed("TIDINGS_WEBHOOK_CONCURRENCY", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? webhookConcurrency
        webhookHostConcurrency =
            try reader.parsed(
                "TIDINGS_WEBHOOK_HOST_CONCURRENCY", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? webhookHostConcurrency
        userWebhookConcurrency =
            try reader.parsed(
                "TIDINGS_USER_WEBHOOK_CONCURRENCY", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? userWebhookConcurrency
        eventRetention = try reader.duration("TIDINGS_EVENT_RETENTION") ?? eventRetention
        let pushURLExpected =
            "an https URL, with or without a path prefix, and no query or credentials, such as https://push.example.com:8443"
        apnsURL = try reader.parsed("TIDINGS_APNS_URL", expected: pushURLExpected, PushTransportConfiguration.baseURL) ?? apnsURL
        fcmURL = try reader.parsed("TIDINGS_FCM_URL", expected: pushURLExpected, PushTransportConfiguration.baseURL) ?? fcmURL
        pushCAFile = reader.string("TIDINGS_PUSH_CA_FILE") ?? pushCAFile
        pushTimeout = try reader.duration("TIDINGS_PUSH_TIMEOUT", atMost: .seconds(600)) ?? pushTimeout
        pushRetrySchedule =
            try reader.parsed(
                "TIDINGS_PUSH_RETRY_SCHEDULE",
                expected: "comma-separated durations such as 1s,5s,30s,2m (at most 50)",
                ValueParsers.durationList
            ) ?? pushRetrySchedule
        pushCoalescingWindow = try reader.duration("TIDINGS_PUSH_COALESCE", allowZero: true) ?? pushCoalescingWindow
        pushSyncBudget =
            try reader.parsed(
                "TIDINGS_PUSH_SYNC_BUDGET",
                expected: "a budget such as 3/1h: at most 3 background pushes per device per hour (count up to 1000000)",
                ValueParsers.rate
            ) ?? pushSyncBudget
        (vapidPrivateKey, vapidSubject) = try Self.webPushSettings(environment, hasDatabaseURL: databaseURL != nil)
        credentialCacheLifetime = try reader.duration("TIDINGS_CREDENTIAL_CACHE", allowZero: true) ?? credentialCacheLifetime
        maxStreams =
            try reader.parsed("TIDINGS_MAX_STREAMS", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? maxStreams
        if let maxStreams, maxStreams >= httpConnectionLimit {
            throw ConfigurationError(
                variable: "TIDINGS_MAX_STREAMS",
                message:
                    "must be below TIDINGS_HTTP_CONNECTION_LIMIT (\(httpConnectionLimit)): each stream holds a connection, and other requests need some"
            )
        }
        maxStreamsPerUser =
            try reader.parsed("TIDINGS_MAX_STREAMS_PER_USER", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? maxStreamsPerUser
        pollConcurrency =
            try reader.parsed(
                "TIDINGS_POLL_CONCURRENCY", expected: "a whole number up to 1000000 (0 turns the poller off)", ValueParsers.count)
            ?? pollConcurrency
        userPollConcurrency =
            try reader.parsed("TIDINGS_USER_POLL_CONCURRENCY", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? userPollConcurrency
        hostConcurrency =
            try reader.parsed("TIDINGS_HOST_CONCURRENCY", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? hostConcurrency
        hostMinimumGap = try reader.duration("TIDINGS_HOST_MIN_GAP", allowZero: true) ?? hostMinimumGap
        maxRetryAfter = try reader.duration("TIDINGS_MAX_RETRY_AFTER", allowZero: true) ?? maxRetryAfter
        maxRulesPerTarget =
            try reader.parsed("TIDINGS_MAX_RULES_PER_TARGET", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? maxRulesPerTarget
        // TIDINGS_MAX_BODY is the older, easily confused name (TIDINGS_MAX_BODY_SIZE limits request bodies).
        let olderPollerMaxResponseSize = try reader.size("TIDINGS_MAX_BODY")
        pollerMaxResponseSize = try reader.size("TIDINGS_POLLER_MAX_RESPONSE_SIZE") ?? olderPollerMaxResponseSize
        unconditionalEvery =
            try reader.parsed("TIDINGS_UNCONDITIONAL_EVERY", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? unconditionalEvery
        failureThreshold =
            try reader.parsed("TIDINGS_FAILURE_THRESHOLD", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? failureThreshold
        extractionThreads =
            try reader.parsed("TIDINGS_EXTRACTION_THREADS", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? extractionThreads
        extractionTimeout = try reader.duration("TIDINGS_EXTRACTION_TIMEOUT", atMost: .seconds(600)) ?? extractionTimeout
        extractionMaxNodes =
            try reader.parsed("TIDINGS_EXTRACTION_MAX_NODES", expected: "a positive integer up to 1000000", ValueParsers.positiveInteger)
            ?? extractionMaxNodes
        checkNowTimeout = try reader.duration("TIDINGS_CHECK_NOW_TIMEOUT", atMost: .seconds(600)) ?? checkNowTimeout
        let limitExpected = "a positive integer up to 1000000"
        userLimits.watches =
            try reader.parsed("TIDINGS_MAX_WATCHES_PER_USER", expected: limitExpected, ValueParsers.positiveInteger) ?? userLimits.watches
        userLimits.webhooks =
            try reader.parsed("TIDINGS_MAX_WEBHOOKS_PER_USER", expected: limitExpected, ValueParsers.positiveInteger) ?? userLimits.webhooks
        userLimits.devices =
            try reader.parsed("TIDINGS_MAX_DEVICES_PER_USER", expected: limitExpected, ValueParsers.positiveInteger) ?? userLimits.devices
        userLimits.apiKeys =
            try reader.parsed("TIDINGS_MAX_API_KEYS_PER_USER", expected: limitExpected, ValueParsers.positiveInteger) ?? userLimits.apiKeys
        let rateExpected = "a rate such as 30/1m: a burst of up to 30, then 30 per minute (count up to 1000000, duration up to 3650d)"
        checkNowRate = try reader.parsed("TIDINGS_CHECK_NOW_RATE", expected: rateExpected, ValueParsers.rate) ?? checkNowRate
        checkNowUserRate = try reader.parsed("TIDINGS_CHECK_NOW_USER_RATE", expected: rateExpected, ValueParsers.rate) ?? checkNowUserRate
        webhookTestRate = try reader.parsed("TIDINGS_WEBHOOK_TEST_RATE", expected: rateExpected, ValueParsers.rate) ?? webhookTestRate
        webhookTestUserRate =
            try reader.parsed("TIDINGS_WEBHOOK_TEST_USER_RATE", expected: rateExpected, ValueParsers.rate) ?? webhookTestUserRate
        deliveryRetryRate = try reader.parsed("TIDINGS_DELIVERY_RETRY_RATE", expected: rateExpected, ValueParsers.rate) ?? deliveryRetryRate
        deliveryRetryUserRate =
            try reader.parsed("TIDINGS_DELIVERY_RETRY_USER_RATE", expected: rateExpected, ValueParsers.rate) ?? deliveryRetryUserRate
        webhookRecoverRate =
            try reader.parsed("TIDINGS_WEBHOOK_RECOVER_RATE", expected: rateExpected, ValueParsers.rate) ?? webhookRecoverRate
        webhookRecoverUserRate =
            try reader.parsed("TIDINGS_WEBHOOK_RECOVER_USER_RATE", expected: rateExpected, ValueParsers.rate) ?? webhookRecoverUserRate
        credentialFailureRate =
            try reader.parsed("TIDINGS_CREDENTIAL_FAILURE_RATE", expected: rateExpected, ValueParsers.rate) ?? credentialFailureRate
    }

    var pollerConfiguration: PollerConfiguration {
        var poller = PollerConfiguration()
        poller.concurrency = pollConcurrency
        poller.userConcurrency = userPollConcurrency ?? max(pollConcurrency * 3 / 4, 1)
        poller.hostConcurrency = hostConcurrency
        poller.hostMinimumGap = hostMinimumGap
        poller.unconditionalEvery = unconditionalEvery
        poller.failureThreshold = failureThreshold
        poller.maximumBackoff = maximumInterval
        poller.maximumRetryAfter = maxRetryAfter
        // A lease outlives the longest check: a version request and a page
        // request, each within the outbound timeout, plus waiting for the host.
        poller.lease = max(.seconds(60), outboundTimeout * 4)
        poller.extractionThreads = extractionThreads
        poller.extractionLimits.timeLimit = extractionTimeout
        poller.extractionLimits.documentNodeLimit = extractionMaxNodes
        poller.checkNowTimeout = checkNowTimeout
        return poller
    }

    var pollerHTTPClientConfiguration: HTTPClientConfiguration {
        var client = httpClientConfiguration
        client.maxResponseSize = pollerMaxResponseSize ?? outboundMaxResponseSize
        return client
    }

    /// Refuses to serve `/metrics` without a token on an API listener that
    /// other machines reach: it names every route's traffic and how the
    /// tenants' targets fare. Checked when serving only, so `migrate` and
    /// `rotate-secret-key` run with the same environment.
    func checkMetricsExposure() throws(ConfigurationError) {
        guard metricsToken == nil, metricsListen == nil else { return }
        let loopback = listenHost == "localhost" || IPAddress(listenHost)?.isLoopback == true
        guard !loopback else { return }
        throw ConfigurationError(
            variable: "TIDINGS_METRICS_TOKEN",
            message: "must be set when /metrics is served on a non-loopback TIDINGS_LISTEN (\(listenHost)): "
                + "set it to a random string of at least 32 characters (`openssl rand -hex 32`) that Prometheus sends as a bearer token, "
                + "or move /metrics to a listener of its own with TIDINGS_METRICS_LISTEN (e.g. 127.0.0.1:9090)"
        )
    }

    /// The metrics listener: the API's settings on its own address, with
    /// a few connections (one scraper, a probe or two).
    var metricsServerConfiguration: HTTPServerConfiguration? {
        guard let metricsListen else { return nil }
        var server = httpServerConfiguration
        server.host = metricsListen.host
        server.port = metricsListen.port
        server.connectionLimit = min(httpConnectionLimit, 64)
        // Scrapes are quick and serve no streams: a thread each is plenty.
        server.threading = .threadPerConnection
        return server
    }

    var eventStreamSettings: EventStreamSettings {
        EventStreamSettings(
            maxStreams: maxStreams ?? max(httpConnectionLimit * 3 / 4, 1),
            maxStreamsPerUser: maxStreamsPerUser,
            heartbeat: streamHeartbeat
        )
    }

    var httpServerConfiguration: HTTPServerConfiguration {
        var server = HTTPServerConfiguration()
        server.host = listenHost
        server.port = listenPort
        server.threading = httpThreading
        server.connectionLimit = httpConnectionLimit
        server.connectionIdleTimeout = httpIdleTimeout
        server.requestTimeout = httpRequestTimeout
        server.responseTimeout = httpResponseTimeout
        server.connectionsPerClient = httpConnectionsPerClient
        server.trustedProxies = trustedProxies
        server.maxBodySize = maxBodySize
        server.maxBodySizeByPath = ["/v1/imports": maxImportSize]
        server.maxHeaderBytes = maxHeaderBytes
        server.shutdownGracePeriod = shutdownTimeout
        return server
    }

    /// The deployment's per-user limits as the session settings the limit
    /// triggers read (`tidings.max_watches_per_user` ..., migration 0018).
    var userLimitSettings: [String: String] {
        var settings: [String: String] = [:]
        for resource in UserResource.allCases {
            settings["tidings.max_\(resource.rawValue)_per_user"] = String(userLimits[resource])
        }
        return settings
    }

    /// The coalescing window as a PostgreSQL interval, in whole milliseconds.
    var badgeCoalescingSetting: String {
        "\(badgeCoalescingWindow.inMilliseconds)ms"
    }

    /// Settings `queue_pushes` (migration 0020) reads: the badge push
    /// coalescing window and the sync budget as `count/interval`.
    var pushSettings: [String: String] {
        [
            "tidings.push_coalesce": "\(pushCoalescingWindow.inMilliseconds)ms",
            "tidings.push_sync_budget": "\(pushSyncBudget.count)/\(pushSyncBudget.period.roundedUpSeconds) seconds",
        ]
    }

    var httpClientConfiguration: HTTPClientConfiguration {
        var client = HTTPClientConfiguration()
        client.allowPrivateTargets = allowPrivateTargets
        client.connectTimeout = outboundConnectTimeout
        client.timeout = outboundTimeout
        client.maxResponseSize = outboundMaxResponseSize
        return client
    }
}

/// Reads and validates single variables; empty values count as unset.
private struct EnvironmentReader {
    let environment: [String: String]

    func string(_ name: String) -> String? {
        guard let value = environment[name]?.trimmingWhitespace(), !value.isEmpty else { return nil }
        return value
    }

    func parsed<Value>(_ name: String, expected: String, _ parse: (String) -> Value?) throws(ConfigurationError) -> Value? {
        guard let raw = string(name) else { return nil }
        guard let value = parse(raw) else {
            throw ConfigurationError(variable: name, message: "invalid value \"\(raw)\"; expected \(expected)")
        }
        return value
    }

    func duration(_ name: String, allowZero: Bool = false) throws(ConfigurationError) -> Duration? {
        let value = try parsed(name, expected: "a duration such as 500ms, 15s, 5m or 2h, at most 3650d", ValueParsers.duration)
        if let value, value < .zero || (value == .zero && !allowZero) {
            throw ConfigurationError(variable: name, message: allowZero ? "must not be negative" : "must be greater than zero")
        }
        return value
    }

    func duration(_ name: String, atMost limit: Duration) throws(ConfigurationError) -> Duration? {
        let value = try duration(name)
        if let value, value > limit {
            throw ConfigurationError(variable: name, message: "must be at most \(limit.components.seconds)s")
        }
        return value
    }

    /// Comma-separated 64-hex-character keys. The error names the variable
    /// and the key's position, never the value (it is a secret).
    func secretKeys(_ name: String, atMost limit: Int) throws(ConfigurationError) -> [SecretKey] {
        guard let raw = string(name) else { return [] }
        let items = raw.split(separator: ",", omittingEmptySubsequences: false)
        guard items.count <= limit else {
            throw ConfigurationError(
                variable: name, message: limit == 1 ? "must be one key, not a list" : "must list at most \(limit) keys")
        }
        var keys: [SecretKey] = []
        for (index, item) in items.enumerated() {
            do {
                keys.append(try SecretKey(hex: String(item)))
            } catch {
                let which = items.count == 1 ? "" : "key \(index + 1) "
                throw ConfigurationError(variable: name, message: "\(which)\(error)")
            }
        }
        return keys
    }

    func size(_ name: String) throws(ConfigurationError) -> Int? {
        let value = try parsed(name, expected: "a size such as 1048576, 512KiB or 1MiB, at most 1GiB", ValueParsers.byteCount)
        if let value, value <= 0 {
            throw ConfigurationError(variable: name, message: "must be greater than zero")
        }
        return value
    }
}
