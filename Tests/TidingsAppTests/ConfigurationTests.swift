import Testing
import TidingsCrypto
import TidingsDispatcher
import TidingsDomain
import TidingsHTTPServer
import TidingsIP
import TidingsObservability
import TidingsPush
import TidingsTestSupport

@testable import TidingsApp

@Suite struct ConfigurationTests {
    /// `/metrics` open to other machines only with a token, or on a
    /// listener of its own; loopback listeners stay as they were.
    @Test(
        arguments: [
            ("127.0.0.1", nil, nil, true), ("127.0.0.9", nil, nil, true), ("::1", nil, nil, true), ("localhost", nil, nil, true),
            ("0.0.0.0", nil, nil, false), ("::", nil, nil, false), ("192.0.2.7", nil, nil, false),
            ("0.0.0.0", String(repeating: "m", count: 32), nil, true), ("0.0.0.0", nil, "127.0.0.1:9090", true),
        ] as [(String, String?, String?, Bool)])
    func metricsOnANonLoopbackListenerWantAToken(host: String, token: String?, metricsListen: String?, allowed: Bool) throws {
        var environment = ["TIDINGS_LISTEN": host.contains(":") ? "[\(host)]:8080" : "\(host):8080"]
        environment["TIDINGS_METRICS_TOKEN"] = token
        environment["TIDINGS_METRICS_LISTEN"] = metricsListen
        let configuration = try Configuration(environment: environment)
        #expect(configuration.listenHost == host)
        if allowed {
            #expect(throws: Never.self) { try configuration.checkMetricsExposure() }
        } else {
            #expect(throws: ConfigurationError.self) { try configuration.checkMetricsExposure() }
        }
    }

    @Test func defaultsWhenNothingIsSet() throws {
        let configuration = try Configuration(environment: [:])
        #expect(configuration.databaseURL == nil)
        #expect(configuration.dataDirectory == "./.tidings")
        #expect(configuration.listenHost == "127.0.0.1")
        #expect(configuration.listenPort == 8080)
        #expect(configuration.allowPrivateTargets == false)
        #expect(configuration.logLevel == .info)
        #expect(configuration.maxBodySize == 1 << 20)
        #expect(configuration.httpServerConfiguration.maxBodySize(forPath: "/v1/imports") == 8 << 20)
        #expect(configuration.maxHeaderBytes == 8 * 1024)
        #expect(configuration.httpIdleTimeout == .seconds(30))
        #expect(configuration.httpRequestTimeout == .seconds(30))
        #expect(configuration.httpResponseTimeout == .seconds(30))
        #expect(configuration.httpConnectionsPerClient == 64)
        #expect(configuration.trustedProxies.isEmpty)
        #expect(configuration.httpThreading == .suspending(pollingThreads: 2, handlerThreads: 64))
        #expect(configuration.httpServerConfiguration.threading == .suspending(pollingThreads: 2, handlerThreads: 64))
    }

    @Test func readsEveryVariable() throws {
        let configuration = try Configuration(environment: [
            "TIDINGS_DATABASE_URL": "postgresql://u@db/tidings",
            "TIDINGS_SECRET_KEY": TestSecretKeys.a,
            "TIDINGS_PREVIOUS_SECRET_KEYS": "\(TestSecretKeys.b), \(TestSecretKeys.a.uppercased())",
            "TIDINGS_DATA_DIR": "/var/lib/tidings",
            "TIDINGS_LISTEN": "0.0.0.0:9090",
            "TIDINGS_ADMIN_TOKEN": String(repeating: "a", count: 40),
            "TIDINGS_ALLOW_PRIVATE_TARGETS": "true",
            "TIDINGS_LOG_LEVEL": "DEBUG",
            "TIDINGS_HTTP_THREADS": "12",
            "TIDINGS_HTTP_CONNECTION_LIMIT": "64",
            "TIDINGS_HTTP_IDLE_TIMEOUT": "1500ms",
            "TIDINGS_HTTP_REQUEST_TIMEOUT": "1m30s",
            "TIDINGS_HTTP_RESPONSE_TIMEOUT": "45s",
            "TIDINGS_HTTP_CONNECTIONS_PER_CLIENT": "8",
            "TIDINGS_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.7,fd00::/8",
            "TIDINGS_MAX_BODY_SIZE": "2MiB",
            "TIDINGS_MAX_IMPORT_SIZE": "20MiB",
            "TIDINGS_HTTP_MAX_HEADER_BYTES": "32KiB",
            "TIDINGS_DATABASE_POOL_SIZE": "3",
            "TIDINGS_DATABASE_ACQUIRE_TIMEOUT": "2s",
            "TIDINGS_SHUTDOWN_TIMEOUT": "1m",
            "TIDINGS_OUTBOUND_CONNECT_TIMEOUT": "3s",
            "TIDINGS_OUTBOUND_TIMEOUT": "1h30m",
            "TIDINGS_OUTBOUND_MAX_RESPONSE_SIZE": "512KiB",
            "TIDINGS_RESOURCES_DIR": "/usr/share/tidings",
        ])
        #expect(configuration.databaseURL == "postgresql://u@db/tidings")
        #expect(configuration.dataDirectory == "/var/lib/tidings")
        #expect(configuration.listenHost == "0.0.0.0" && configuration.listenPort == 9090)
        #expect(configuration.allowPrivateTargets)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.httpThreading == .suspending(pollingThreads: 12, handlerThreads: 64))
        #expect(configuration.httpConnectionLimit == 64)
        #expect(configuration.httpIdleTimeout == .milliseconds(1500))
        #expect(configuration.httpRequestTimeout == .seconds(90))
        #expect(configuration.httpResponseTimeout == .seconds(45))
        #expect(configuration.httpServerConfiguration.responseTimeout == .seconds(45))
        #expect(configuration.httpConnectionsPerClient == 8)
        #expect(configuration.trustedProxies.description == "10.0.0.0/8,192.0.2.7,fd00::/8")
        let server = configuration.httpServerConfiguration
        #expect(server.requestTimeout == .seconds(90) && server.connectionsPerClient == 8)
        #expect(server.trustedProxies.contains(try #require(IPAddress("10.1.2.3"))))
        #expect(configuration.maxBodySize == 2 << 20)
        #expect(configuration.httpServerConfiguration.maxBodySize(forPath: "/v1/imports") == 20 << 20)
        #expect(configuration.httpServerConfiguration.maxBodySize(forPath: "/v1/watches") == 2 << 20)
        #expect(configuration.httpServerConfiguration.maxHeaderBytes == 32 * 1024)
        #expect(configuration.databasePoolSize == 3)
        #expect(configuration.databaseAcquireTimeout == .seconds(2))
        #expect(configuration.shutdownTimeout == .seconds(60))
        #expect(configuration.outboundConnectTimeout == .seconds(3))
        #expect(configuration.outboundTimeout == .seconds(5400))
        #expect(configuration.outboundMaxResponseSize == 512 << 10)
        #expect(configuration.resourcesDirectory == "/usr/share/tidings")
        #expect(configuration.secretKey?.id == (try SecretKey(hex: TestSecretKeys.a)).id)
        #expect(
            configuration.previousSecretKeys.map(\.id) == [
                try SecretKey(hex: TestSecretKeys.b).id, try SecretKey(hex: TestSecretKeys.a).id,
            ])
    }

    @Test func readsThePushVariables() throws {
        let configuration = try Configuration(environment: [
            "TIDINGS_APNS_URL": "https://apns.example.com:8443/",
            "TIDINGS_FCM_URL": "https://fcm.example.com/gateway",
            "TIDINGS_PUSH_CA_FILE": "/etc/tidings/push-ca.pem",
            "TIDINGS_PUSH_SYNC_BUDGET": "5/1d",
            "TIDINGS_PUSH_COALESCE": "0s",
            "TIDINGS_EVENT_RETENTION": "1h",
        ])
        #expect(configuration.pushSyncBudget == RatePolicy(count: 5, per: .seconds(86_400)))
        #expect(configuration.pushCoalescingWindow == .zero)
        let push = configuration.pushDispatcherConfiguration
        #expect(push.transport.apnsBaseURL(for: .production) == "https://apns.example.com:8443")
        #expect(push.transport.fcmBase == "https://fcm.example.com/gateway")
        #expect(push.transport.caFile == "/etc/tidings/push-ca.pem")
        // The sync budget counts the sync pushes of its period: the push
        // log keeps them that long, whatever the event retention.
        #expect(push.logRetention == .seconds(86_400))
        #expect(try Configuration(environment: [:]).pushDispatcherConfiguration.logRetention == .seconds(30 * 86_400))

        for (name, value) in [
            ("TIDINGS_APNS_URL", "http://apns.example.com"), ("TIDINGS_FCM_URL", "https://user@fcm.example.com"),
            ("TIDINGS_PUSH_SYNC_BUDGET", "3"), ("TIDINGS_PUSH_SYNC_BUDGET", "-1/1h"), ("TIDINGS_PUSH_SYNC_BUDGET", "3/0s"),
        ] {
            #expect(throws: ConfigurationError.self, "\(name)=\(value)") { try Configuration(environment: [name: value]) }
        }
    }

    @Test func readsTheUsersWebhookShare() throws {
        let configuration = try Configuration(environment: ["TIDINGS_USER_WEBHOOK_CONCURRENCY": "100"])
        #expect(configuration.dispatcherConfiguration.perUserConcurrency == 100)
        #expect(try Configuration(environment: [:]).dispatcherConfiguration.perUserConcurrency == nil)
        for value in ["0", "-1", "lots"] {
            #expect(throws: ConfigurationError.self, "\(value)") {
                try Configuration(environment: ["TIDINGS_USER_WEBHOOK_CONCURRENCY": value])
            }
        }
    }

    @Test func aDatabaseURLNeedsASecretKey() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: ["TIDINGS_DATABASE_URL": "postgresql://u@db/tidings"])
        }
        #expect(error.variable == "TIDINGS_SECRET_KEY" && error.message.contains("openssl rand -hex 32"))
        // Without a database URL the private-database mode generates one at start.
        #expect(try Configuration(environment: [:]).secretKey == nil)
    }

    @Test func aBadSecretKeyIsNeverEchoed() throws {
        let value = "deadbeef" + String(repeating: "x", count: 56)
        let error = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: ["TIDINGS_SECRET_KEY": value])
        }
        #expect(error.variable == "TIDINGS_SECRET_KEY" && !error.description.contains(value) && !error.description.contains("deadbeef"))
        let previous = try #require(throws: ConfigurationError.self) {
            try Configuration(environment: [
                "TIDINGS_SECRET_KEY": TestSecretKeys.a, "TIDINGS_PREVIOUS_SECRET_KEYS": "\(TestSecretKeys.b),abc",
            ])
        }
        #expect(previous.variable == "TIDINGS_PREVIOUS_SECRET_KEYS" && previous.message.hasPrefix("key 2 "))
    }

    @Test(arguments: [
        ("TIDINGS_LISTEN", "8080"),
        ("TIDINGS_LISTEN", "localhost:99999"),
        ("TIDINGS_ALLOW_PRIVATE_TARGETS", "maybe"),
        ("TIDINGS_LOG_LEVEL", "loud"),
        ("TIDINGS_HTTP_THREADS", "-1"),
        ("TIDINGS_HTTP_THREADS", "many"),
        ("TIDINGS_HTTP_IDLE_TIMEOUT", "30"),
        ("TIDINGS_HTTP_IDLE_TIMEOUT", "0s"),
        ("TIDINGS_HTTP_REQUEST_TIMEOUT", "500ms"),
        ("TIDINGS_HTTP_REQUEST_TIMEOUT", "-5s"),
        ("TIDINGS_HTTP_REQUEST_TIMEOUT", "99999999999999999999s"),
        ("TIDINGS_HTTP_REQUEST_TIMEOUT", "30"),
        ("TIDINGS_HTTP_RESPONSE_TIMEOUT", "500ms"),
        ("TIDINGS_HTTP_RESPONSE_TIMEOUT", "-5s"),
        ("TIDINGS_HTTP_CONNECTIONS_PER_CLIENT", "0"),
        ("TIDINGS_HTTP_CONNECTIONS_PER_CLIENT", "-3"),
        ("TIDINGS_HTTP_CONNECTIONS_PER_CLIENT", "99999999999999999999999"),
        ("TIDINGS_HTTP_CONNECTIONS_PER_CLIENT", "lots"),
        ("TIDINGS_TRUSTED_PROXIES", "proxy.internal"),
        ("TIDINGS_TRUSTED_PROXIES", "10.1.2.3/8"),
        ("TIDINGS_TRUSTED_PROXIES", "10.0.0.0/99999999999999999999"),
        ("TIDINGS_TRUSTED_PROXIES", "10.0.0.0/8,,fd00::/8"),
        ("TIDINGS_TRUSTED_PROXIES", "[::1]"),
        ("TIDINGS_SHUTDOWN_TIMEOUT", "5 minutes"),
        ("TIDINGS_MAX_BODY_SIZE", "1 TB"),
        ("TIDINGS_DATABASE_POOL_SIZE", "-1"),
        ("TIDINGS_ADMIN_TOKEN", "short"),
        // Absurd values: each has an explicit bound instead of a later overflow.
        ("TIDINGS_WEBHOOK_CONCURRENCY", "9223372036854775807"),
        ("TIDINGS_WEBHOOK_CONCURRENCY", "99999999999999999999999"),
        ("TIDINGS_HTTP_CONNECTION_LIMIT", "1000001"),
        ("TIDINGS_POLL_CONCURRENCY", "9223372036854775807"),
        ("TIDINGS_POLL_CONCURRENCY", "-1"),
        ("TIDINGS_HTTP_THREADS", "1025"),
        ("TIDINGS_WEBHOOK_TIMEOUT", "1000000000d"),
        ("TIDINGS_MAX_INTERVAL", "3651d"),
        ("TIDINGS_EVENT_RETENTION", "3000d3000d"),
        ("TIDINGS_WEBHOOK_RETRY_SCHEDULE", "0s,1000000000d"),
        ("TIDINGS_OUTBOUND_MAX_RESPONSE_SIZE", "9223372036854775807"),
        ("TIDINGS_MAX_BODY_SIZE", "2GiB"),
        ("TIDINGS_MAX_IMPORT_SIZE", "0"),
        ("TIDINGS_MAX_IMPORT_SIZE", "2GiB"),
        ("TIDINGS_MAX_IMPORT_SIZE", "-1MiB"),
        ("TIDINGS_HTTP_MAX_HEADER_BYTES", "512"),
        ("TIDINGS_HTTP_MAX_HEADER_BYTES", "2MiB"),
        ("TIDINGS_MAX_BODY", "8589934592GiB"),
        ("TIDINGS_SECRET_KEY", "not-hex-" + String(repeating: "0", count: 56)),
        ("TIDINGS_SECRET_KEY", String(repeating: "ab", count: 31)),
        ("TIDINGS_SECRET_KEY", String(repeating: "0", count: 64)),
        ("TIDINGS_SECRET_KEY", TestSecretKeys.a + "," + TestSecretKeys.b),
        ("TIDINGS_PREVIOUS_SECRET_KEYS", TestSecretKeys.a + ",c0ffee"),
        ("TIDINGS_PREVIOUS_SECRET_KEYS", TestSecretKeys.a + ",,"),
        ("TIDINGS_MAX_WATCHES_PER_USER", "0"),
        ("TIDINGS_MAX_WATCHES_PER_USER", "-5"),
        ("TIDINGS_MAX_WEBHOOKS_PER_USER", "1000001"),
        ("TIDINGS_MAX_DEVICES_PER_USER", "99999999999999999999999"),
        ("TIDINGS_MAX_API_KEYS_PER_USER", "2.5"),
        ("TIDINGS_CHECK_NOW_RATE", "30"),
        ("TIDINGS_CHECK_NOW_RATE", "0/1m"),
        ("TIDINGS_CHECK_NOW_USER_RATE", "5/0s"),
        ("TIDINGS_CHECK_NOW_USER_RATE", "5/60"),
        ("TIDINGS_WEBHOOK_TEST_RATE", "1000001/1s"),
        ("TIDINGS_WEBHOOK_TEST_RATE", "1/3651d"),
        ("TIDINGS_WEBHOOK_TEST_USER_RATE", "1/1m/1m"),
        ("TIDINGS_WEBHOOK_TEST_USER_RATE", "/1m"),
    ])
    func invalidValueNamesTheVariable(variable: String, value: String) {
        #expect {
            try Configuration(environment: [variable: value])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.variable == variable && error.description.hasPrefix(variable)
        }
    }

    @Test func httpThreadsZeroIsAThreadPerConnection() throws {
        let configuration = try Configuration(environment: ["TIDINGS_HTTP_THREADS": "0"])
        #expect(configuration.httpServerConfiguration.threading == .threadPerConnection)
        let withHandlers = try Configuration(environment: ["TIDINGS_HTTP_THREADS": "0", "TIDINGS_HTTP_HANDLER_THREADS": "8"])
        #expect(withHandlers.httpThreading == .threadPerConnection)
    }

    @Test func streamsStayBelowTheConnectionLimit() throws {
        #expect(try Configuration(environment: [:]).eventStreamSettings.maxStreams == 768)
        #expect(try Configuration(environment: ["TIDINGS_HTTP_CONNECTION_LIMIT": "12000"]).eventStreamSettings.maxStreams == 9000)
        let raised = try Configuration(environment: ["TIDINGS_HTTP_CONNECTION_LIMIT": "12000", "TIDINGS_MAX_STREAMS": "10000"])
        #expect(raised.eventStreamSettings.maxStreams == 10_000)
        #expect(raised.eventStreamSettings.maxStreamsPerUser == 10)
        #expect {
            try Configuration(environment: ["TIDINGS_MAX_STREAMS": "1024"])
        } throws: { error in
            (error as? ConfigurationError)?.variable == "TIDINGS_MAX_STREAMS"
        }
    }

    @Test func handlerThreadsChooseBetweenSuspendingAndAnInlinePool() throws {
        #expect(try Configuration(environment: ["TIDINGS_HTTP_HANDLER_THREADS": "0"]).httpThreading == .pool(threads: 2))
        #expect(
            try Configuration(environment: ["TIDINGS_HTTP_THREADS": "3", "TIDINGS_HTTP_HANDLER_THREADS": "8"]).httpThreading
                == .suspending(pollingThreads: 3, handlerThreads: 8))
        #expect(
            try Configuration(environment: ["TIDINGS_HTTP_HANDLER_THREADS": "16"]).httpThreading
                == .suspending(pollingThreads: 2, handlerThreads: 16))
    }

    @Test func durationSyntax() {
        #expect(ValueParsers.duration("500ms") == .milliseconds(500))
        #expect(ValueParsers.duration("15s") == .seconds(15))
        #expect(ValueParsers.duration("5m") == .seconds(300))
        #expect(ValueParsers.duration("2h") == .seconds(7200))
        #expect(ValueParsers.duration("1d") == .seconds(86_400))
        #expect(ValueParsers.duration("1m30s") == .seconds(90))
        #expect(ValueParsers.duration("") == nil)
        #expect(ValueParsers.duration("15") == nil)
        #expect(ValueParsers.duration("s") == nil)
        #expect(ValueParsers.duration("1.5s") == nil)
        #expect(ValueParsers.duration("10y") == nil)
    }

    @Test func listenAddressSyntax() {
        #expect(ValueParsers.listenAddress("[::1]:8080")! == ("::1", 8080))
        #expect(ValueParsers.listenAddress(":9000")! == ("127.0.0.1", 9000))
        #expect(ValueParsers.listenAddress("[::1]8080") == nil)
    }

    @Test func perUserLimitsAndRates() throws {
        let defaults = try Configuration(environment: [:])
        #expect(defaults.userLimits == UserLimits(watches: 1000, webhooks: 20, devices: 100, apiKeys: 10))
        #expect(defaults.checkNowRate == RatePolicy(count: 2, per: .seconds(20)))
        #expect(defaults.checkNowUserRate == RatePolicy(count: 30, per: .seconds(60)))
        #expect(defaults.webhookTestRate == RatePolicy(count: 2, per: .seconds(20)))
        #expect(defaults.webhookTestUserRate == RatePolicy(count: 30, per: .seconds(60)))
        #expect(defaults.deliveryRetryRate == RatePolicy(count: 2, per: .seconds(20)))
        #expect(defaults.deliveryRetryUserRate == RatePolicy(count: 30, per: .seconds(60)))
        #expect(defaults.webhookRecoverRate == RatePolicy(count: 2, per: .seconds(60)))
        #expect(defaults.webhookRecoverUserRate == RatePolicy(count: 10, per: .seconds(60)))

        let configuration = try Configuration(environment: [
            "TIDINGS_MAX_WATCHES_PER_USER": "5000",
            "TIDINGS_MAX_WEBHOOKS_PER_USER": "1",
            "TIDINGS_MAX_DEVICES_PER_USER": " 1000000 ",
            "TIDINGS_MAX_API_KEYS_PER_USER": "3",
            "TIDINGS_CHECK_NOW_RATE": "1/10s",
            "TIDINGS_CHECK_NOW_USER_RATE": "100/1h",
            "TIDINGS_WEBHOOK_TEST_RATE": "5/1m30s",
            "TIDINGS_WEBHOOK_TEST_USER_RATE": "1000000/500ms",
            "TIDINGS_DELIVERY_RETRY_RATE": "3/1m",
            "TIDINGS_DELIVERY_RETRY_USER_RATE": "40/1h",
            "TIDINGS_WEBHOOK_RECOVER_RATE": "1/5m",
            "TIDINGS_WEBHOOK_RECOVER_USER_RATE": "7/2m",
        ])
        #expect(configuration.userLimits == UserLimits(watches: 5000, webhooks: 1, devices: 1_000_000, apiKeys: 3))
        #expect(configuration.checkNowRate == RatePolicy(count: 1, per: .seconds(10)))
        #expect(configuration.checkNowUserRate == RatePolicy(count: 100, per: .seconds(3600)))
        #expect(configuration.webhookTestRate == RatePolicy(count: 5, per: .seconds(90)))
        #expect(configuration.webhookTestUserRate == RatePolicy(count: 1_000_000, per: .milliseconds(500)))
        #expect(configuration.deliveryRetryRate == RatePolicy(count: 3, per: .seconds(60)))
        #expect(configuration.deliveryRetryUserRate == RatePolicy(count: 40, per: .seconds(3600)))
        #expect(configuration.webhookRecoverRate == RatePolicy(count: 1, per: .seconds(300)))
        #expect(configuration.webhookRecoverUserRate == RatePolicy(count: 7, per: .seconds(120)))
        // The names migration 0018's trigger reads.
        #expect(
            configuration.userLimitSettings == [
                "tidings.max_watches_per_user": "5000",
                "tidings.max_webhooks_per_user": "1",
                "tidings.max_devices_per_user": "1000000",
                "tidings.max_api_keys_per_user": "3",
            ])
    }

    @Test func rateSyntax() {
        #expect(ValueParsers.rate("30/1m") == RatePolicy(count: 30, per: .seconds(60)))
        #expect(ValueParsers.rate(" 2/20s ")?.interval == .seconds(10))
        #expect(ValueParsers.rate("3/1s")?.interval == Duration.seconds(1) / 3)
        for invalid in ["", "30", "/1m", "30/", "30/1", "0/1m", "-1/1m", "1.5/1m", "1/0s", "1/1m/1m", "x/1m", "1/1y"] {
            #expect(ValueParsers.rate(invalid) == nil, "\(invalid)")
        }
    }

    @Test func helpListsEveryVariable() {
        for name in [
            "TIDINGS_DATABASE_URL", "TIDINGS_DATA_DIR", "TIDINGS_LISTEN", "TIDINGS_ADMIN_TOKEN",
            "TIDINGS_ALLOW_PRIVATE_TARGETS", "TIDINGS_LOG_LEVEL",
        ] {
            #expect(ConfigurationVariable.helpText.contains(name))
        }
        #expect(ConfigurationVariable.all.count == Set(ConfigurationVariable.all.map(\.name)).count)
    }

    @Test func pollerResponseCapKeepsItsOlderName() throws {
        #expect(try Configuration(environment: ["TIDINGS_MAX_BODY": "2MiB"]).pollerMaxResponseSize == 2 << 20)
        #expect(try Configuration(environment: ["TIDINGS_POLLER_MAX_RESPONSE_SIZE": "3MiB"]).pollerMaxResponseSize == 3 << 20)
        let both = try Configuration(environment: ["TIDINGS_POLLER_MAX_RESPONSE_SIZE": "3MiB", "TIDINGS_MAX_BODY": "2MiB"])
        #expect(both.pollerMaxResponseSize == 3 << 20, "the clearer name wins")
    }
}
