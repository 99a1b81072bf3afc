/// One environment variable Tidings reads: the single list behind
/// `tidings --help` and the README's configuration table.
package struct ConfigurationVariable: Sendable {
    package let name: String
    package let defaultValue: String
    package let summary: String

    package static let all: [ConfigurationVariable] = [
        .init(
            name: "TIDINGS_DATABASE_URL", defaultValue: "(unset)",
            summary: "PostgreSQL connection URL. Unset: run a private PostgreSQL cluster in TIDINGS_DATA_DIR."),
        .init(
            name: "TIDINGS_DATA_DIR", defaultValue: "./.tidings",
            summary: "Folder for the private PostgreSQL cluster and generated secrets."),
        .init(
            name: "TIDINGS_LISTEN", defaultValue: "127.0.0.1:8080",
            summary: "HTTP listen address as host:port (0.0.0.0:8080 for all interfaces)."),
        .init(
            name: "TIDINGS_ADMIN_TOKEN", defaultValue: "(unset)",
            summary: "Bearer token for the admin API (at least 32 characters)."),
        .init(
            name: "TIDINGS_SECRET_KEY", defaultValue: "(generated in TIDINGS_DATA_DIR without TIDINGS_DATABASE_URL)",
            summary:
                "Key that encrypts webhook secrets and watch header values at rest (AES-256-GCM): 64 hex characters, `openssl rand -hex 32`. Required with TIDINGS_DATABASE_URL; the same on every replica."
        ),
        .init(
            name: "TIDINGS_PREVIOUS_SECRET_KEYS", defaultValue: "(none)",
            summary:
                "Comma-separated older secret keys (at most 10) that still decrypt values during a key rotation; `tidings rotate-secret-key` re-encrypts them under TIDINGS_SECRET_KEY."
        ),
        .init(
            name: "TIDINGS_METRICS_TOKEN", defaultValue: "(unset)",
            summary:
                "Bearer token Prometheus must send for /metrics (at least 32 characters). Unset: /metrics is open to whoever reaches its listener."
        ),
        .init(
            name: "TIDINGS_METRICS_LISTEN", defaultValue: "(unset)",
            summary:
                "host:port of a listener of its own for /metrics (and /healthz), e.g. 127.0.0.1:9090 or an address only the monitoring network reaches; /metrics then leaves TIDINGS_LISTEN."
        ),
        .init(
            name: "TIDINGS_ALLOW_PRIVATE_TARGETS", defaultValue: "false",
            summary: "true lets outbound requests reach loopback, private and link-local addresses."),
        .init(
            name: "TIDINGS_LOG_LEVEL", defaultValue: "info",
            summary: "trace, debug, info, notice, warning, error or critical."),
        .init(
            name: "TIDINGS_HTTP_THREADS", defaultValue: "2",
            summary:
                "Epoll threads doing all HTTP connections' I/O. 0: one thread per connection instead (GET /v1/events then answers 500: streams need handler threads)."
        ),
        .init(
            name: "TIDINGS_HTTP_HANDLER_THREADS", defaultValue: "64",
            summary:
                "Threads running request handlers while the epoll threads only poll, taking turns between clients, so no connection waits behind another's handler and idle connections and event streams hold no thread. 0: handlers run on the epoll threads."
        ),
        .init(
            name: "TIDINGS_HTTP_CONNECTION_LIMIT", defaultValue: "1024",
            summary:
                "Maximum simultaneous HTTP connections. At the limit a new connection takes the place of an idle or slow one of the client address holding the most (at least two more than the newcomer's); with none to shed it is closed unanswered."
        ),
        .init(
            name: "TIDINGS_HTTP_IDLE_TIMEOUT", defaultValue: "30s",
            summary: "Close an HTTP connection that sends or reads nothing for this long (between requests too)."),
        .init(
            name: "TIDINGS_HTTP_REQUEST_TIMEOUT", defaultValue: "30s",
            summary:
                "A request's head and body must arrive within this long, however steadily they trickle in; past it the connection is closed (408 once the request line is in). Counted from the connection's opening, or from the request line on a keep-alive connection (at most TIDINGS_HTTP_IDLE_TIMEOUT after the previous response)."
        ),
        .init(
            name: "TIDINGS_HTTP_RESPONSE_TIMEOUT", defaultValue: "30s",
            summary:
                "A response must be taken by the client within this long of being ready (its last byte in the kernel's send buffer), however steadily it reads; past it the connection is closed. An event stream as a whole has none: a client that has not caught up with it for this long is cut at its next event or heartbeat."
        ),
        .init(
            name: "TIDINGS_HTTP_CONNECTIONS_PER_CLIENT", defaultValue: "64",
            summary:
                "Most connections open at once from one client address (IPv6: one /64); more are closed unanswered. Trusted proxies are exempt. Set it to TIDINGS_HTTP_CONNECTION_LIMIT to turn it off."
        ),
        .init(
            name: "TIDINGS_TRUSTED_PROXIES", defaultValue: "(none)",
            summary:
                "Comma-separated addresses or CIDR networks of reverse proxies (e.g. 10.0.0.0/8,fd00::/8). Only connections from them may name the client in X-Forwarded-For (rightmost address not itself a trusted proxy; used for the access log), and they are exempt from TIDINGS_HTTP_CONNECTIONS_PER_CLIENT."
        ),
        .init(
            name: "TIDINGS_MAX_BODY_SIZE", defaultValue: "1MiB",
            summary: "Largest accepted request body; larger ones get 413."),
        .init(
            name: "TIDINGS_MAX_IMPORT_SIZE", defaultValue: "8MiB",
            summary:
                "Largest file POST /v1/imports accepts, in place of TIDINGS_MAX_BODY_SIZE (an export of 10,000 watches is about 1.8 MB); larger ones get 413."
        ),
        .init(
            name: "TIDINGS_HTTP_MAX_HEADER_BYTES", defaultValue: "8KiB",
            summary:
                "Budget for a request's line and header fields together (1KiB-1MiB); header fields beyond it get 431. Each connection's memory follows it (about half of it plus 16 KB per open event stream)."
        ),
        .init(
            name: "TIDINGS_DATABASE_POOL_SIZE", defaultValue: "8",
            summary: "Maximum PostgreSQL connections per process."),
        .init(
            name: "TIDINGS_DATABASE_ACQUIRE_TIMEOUT", defaultValue: "5s",
            summary: "How long a request waits for a free database connection before 503."),
        .init(
            name: "TIDINGS_SHUTDOWN_TIMEOUT", defaultValue: "10s",
            summary: "Grace period for in-flight requests on SIGTERM/SIGINT."),
        .init(
            name: "TIDINGS_OUTBOUND_CONNECT_TIMEOUT", defaultValue: "10s",
            summary: "Connect timeout for outbound requests (polling, webhooks)."),
        .init(
            name: "TIDINGS_OUTBOUND_TIMEOUT", defaultValue: "30s",
            summary: "Total timeout for one outbound request."),
        .init(
            name: "TIDINGS_OUTBOUND_MAX_RESPONSE_SIZE", defaultValue: "5MiB",
            summary: "Largest outbound response body read (after decompression)."),
        .init(
            name: "TIDINGS_MIN_INTERVAL", defaultValue: "30s",
            summary: "Shortest check interval a watch may ask for."),
        .init(
            name: "TIDINGS_MAX_INTERVAL", defaultValue: "24h",
            summary: "Longest check interval a watch may ask for."),
        .init(
            name: "TIDINGS_DEFAULT_MAX_INTERVAL", defaultValue: "(the watch's interval)",
            summary:
                "max_interval_seconds of a watch that sets none: while its content stays the same, its checks may back off up to this (never below its interval_seconds, at most TIDINGS_MAX_INTERVAL). Unset: no back-off unless a watch asks."
        ),
        .init(
            name: "TIDINGS_MAX_WATCHES_PER_USER", defaultValue: "1000",
            summary:
                "Most watches one user may have; more get 403 (limit \"watches\"). An admin can set another limit for one user (PATCH /v1/users/{id})."
        ),
        .init(
            name: "TIDINGS_MAX_WEBHOOKS_PER_USER", defaultValue: "20",
            summary:
                "Most webhooks of its own one user may have (global webhooks are not counted); more get 403 (limit \"webhooks\"). Every event goes to each of them."
        ),
        .init(
            name: "TIDINGS_MAX_DEVICES_PER_USER", defaultValue: "100",
            summary:
                "Most devices one user may have; registering a new push token past it gets 403 (limit \"devices\"), re-registering a known one always works."
        ),
        .init(
            name: "TIDINGS_MAX_API_KEYS_PER_USER", defaultValue: "10",
            summary: "Most active (unrevoked) API keys one user may have; issuing more gets 403 (limit \"api_keys\")."),
        .init(
            name: "TIDINGS_BADGE_COALESCE", defaultValue: "2s",
            summary: "A badge.updated delivery waits this long so a burst of changes sends one final count (0s: no wait)."),
        .init(
            name: "TIDINGS_CREDENTIAL_CACHE", defaultValue: "60s",
            summary:
                "How long a verified API key is served from memory (revocations still apply at once, via LISTEN/NOTIFY); 0s turns the cache off."
        ),
        .init(
            name: "TIDINGS_MAX_STREAMS", defaultValue: "3/4 of TIDINGS_HTTP_CONNECTION_LIMIT",
            summary:
                "Event streams (GET /v1/events) this process holds open at once; more get 503 with Retry-After. Below TIDINGS_HTTP_CONNECTION_LIMIT: each stream is a connection, and other requests need some."
        ),
        .init(
            name: "TIDINGS_MAX_STREAMS_PER_USER", defaultValue: "10",
            summary: "Event streams one user may hold open on this process; more get 429 (limit \"streams_per_user\")."),
        .init(
            name: "TIDINGS_POLL_CONCURRENCY", defaultValue: "256",
            summary: "Checks the poller keeps in flight (0 turns background polling off; POST /v1/watches/{id}/check still works)."),
        .init(
            name: "TIDINGS_USER_POLL_CONCURRENCY", defaultValue: "3/4 of TIDINGS_POLL_CONCURRENCY",
            summary:
                "Most of those checks charged to one user at once (to the least busy user watching the target), so one tenant's slow origins leave the rest of the slots to everyone else; set it to TIDINGS_POLL_CONCURRENCY for a single-tenant deployment."
        ),
        .init(
            name: "TIDINGS_HOST_CONCURRENCY", defaultValue: "2",
            summary:
                "Most poller requests in flight to one host (host:port) from the whole deployment: each of N live replicas allows cap/N, at least 1."
        ),
        .init(
            name: "TIDINGS_HOST_MIN_GAP", defaultValue: "0s",
            summary: "Least time between the starts of two requests to one host; each of N live replicas keeps N times this gap."),
        .init(
            name: "TIDINGS_MAX_RETRY_AFTER", defaultValue: "1h",
            summary:
                "Longest a Retry-After (429, 503) holds the host (host:port) that sent it; longer asks are cut to this. Other hosts of the same site are not held."
        ),
        .init(
            name: "TIDINGS_MAX_RULES_PER_TARGET", defaultValue: "32",
            summary:
                "Most distinct extraction rules the watches of one URL (with its headers and version check) may carry together; a watch that would add one more gets 422 naming extract."
        ),
        .init(
            name: "TIDINGS_POLLER_MAX_RESPONSE_SIZE", defaultValue: "(TIDINGS_OUTBOUND_MAX_RESPONSE_SIZE)",
            summary: "Largest page or version response the poller reads, after decompression; larger is a failed check."),
        .init(
            name: "TIDINGS_MAX_BODY", defaultValue: "(unset)",
            summary: "Older name of TIDINGS_POLLER_MAX_RESPONSE_SIZE, still read when that one is unset."),
        .init(
            name: "TIDINGS_UNCONDITIONAL_EVERY", defaultValue: "24",
            summary: "Every Nth check of a target ignores its ETag/Last-Modified, to catch servers that answer 304 wrongly."),
        .init(
            name: "TIDINGS_FAILURE_THRESHOLD", defaultValue: "3",
            summary: "Consecutive failed checks after which a watch is failing (watch.failing, then watch.recovered once it works)."),
        .init(
            name: "TIDINGS_EXTRACTION_THREADS", defaultValue: "(cores)",
            summary: "Threads that run extraction (CSS, XPath, JSON pointers, ignore patterns), apart from everything else."),
        .init(
            name: "TIDINGS_EXTRACTION_TIMEOUT", defaultValue: "2s",
            summary: "Time one rule's extraction may take on one page (at most 10m); past it the check fails."),
        .init(
            name: "TIDINGS_EXTRACTION_MAX_NODES", defaultValue: "100000",
            summary: "Most nodes of an HTML page CSS and XPath rules work on; a larger page fails the check."),
        .init(
            name: "TIDINGS_CHECK_NOW_TIMEOUT", defaultValue: "20s",
            summary: "How long POST /v1/watches/{id}/check waits for its check (at most 10m) before answering 504; the check goes on."),
        .init(
            name: "TIDINGS_CHECK_NOW_RATE", defaultValue: "2/20s",
            summary:
                "POST /v1/watches/{id}/check per watch, as count/duration: a burst of count, then count per duration; more get 429 with Retry-After. Per process."
        ),
        .init(
            name: "TIDINGS_CHECK_NOW_USER_RATE", defaultValue: "30/1m",
            summary: "POST /v1/watches/{id}/check per user, all its watches together (count/duration, as TIDINGS_CHECK_NOW_RATE)."),
        .init(
            name: "TIDINGS_CREDENTIAL_FAILURE_RATE", defaultValue: "30/1m",
            summary:
                "Unknown or revoked API keys and stream tokens per client address (IPv6: one /64), as count/duration; past it 429 before any lookup. Per process."
        ),
        .init(
            name: "TIDINGS_WEBHOOK_TIMEOUT", defaultValue: "15s",
            summary:
                "Time a webhook receiver has to answer one delivery attempt with a 2xx. It also bounds crash recovery: should a process die, every delivery it held (in flight or queued) goes out again from another process, or the next to start, within about timeout + 6 s of its death (about 21 s by default); see docs/LIMITS.md."
        ),
        .init(
            name: "TIDINGS_WEBHOOK_RETRY_SCHEDULE", defaultValue: "0s,5s,5m,30m,2h,5h,10h,10h",
            summary: "Delay before each webhook delivery attempt (±20% jitter); its length is the number of attempts."),
        .init(
            name: "TIDINGS_WEBHOOK_DISABLE_AFTER", defaultValue: "5d",
            summary: "A webhook whose deliveries have all failed this long is disabled."),
        .init(
            name: "TIDINGS_WEBHOOK_CONCURRENCY", defaultValue: "4",
            summary: "Webhook requests in flight to one webhook at a time."),
        .init(
            name: "TIDINGS_WEBHOOK_HOST_CONCURRENCY", defaultValue: "256",
            summary:
                "Webhook requests in flight from the whole deployment (each of N live replicas allows cap/N, at least 1) to one receiver host and port, across all webhooks of all users pointed at it (the host lower-case, trailing dot removed). Below TIDINGS_WEBHOOK_CONCURRENCY times the webhooks on one host, deliveries the process queued may wait out their lease and go out late (never lost)."
        ),
        .init(
            name: "TIDINGS_USER_WEBHOOK_CONCURRENCY", defaultValue: "384",
            summary:
                "Webhook requests one process has in flight for one user's webhooks together (3/4 of the 512 it has in all), so one tenant's receivers that never answer leave the rest to everyone else; global webhooks are not counted. Above 512 it has no effect."
        ),
        .init(
            name: "TIDINGS_WEBHOOK_TEST_RATE", defaultValue: "2/20s",
            summary:
                "Test events (POST /v1/webhooks/{id}/test, and the admin's) per webhook, as count/duration; more get 429 with Retry-After. Per process."
        ),
        .init(
            name: "TIDINGS_WEBHOOK_TEST_USER_RATE", defaultValue: "30/1m",
            summary: "Test events per user, all its webhooks together (count/duration)."),
        .init(
            name: "TIDINGS_DELIVERY_RETRY_RATE", defaultValue: "2/20s",
            summary:
                "Retries on request (POST /v1/deliveries/{id}/retry, and the admin's) per delivery, as count/duration; more get 429 with Retry-After. Per process."
        ),
        .init(
            name: "TIDINGS_DELIVERY_RETRY_USER_RATE", defaultValue: "30/1m",
            summary: "Retries on request per user, all its deliveries together (count/duration)."),
        .init(
            name: "TIDINGS_WEBHOOK_RECOVER_RATE", defaultValue: "2/1m",
            summary:
                "Recoveries (POST /v1/webhooks/{id}/recover, and the admin's) per webhook, as count/duration; more get 429 with Retry-After. Per process."
        ),
        .init(
            name: "TIDINGS_WEBHOOK_RECOVER_USER_RATE", defaultValue: "10/1m",
            summary: "Recoveries per user, all its webhooks together (count/duration)."),
        .init(
            name: "TIDINGS_APNS_URL", defaultValue: "(by environment)",
            summary:
                "APNs base URL for every APNs push app: https://api.push.apple.com for production apps, https://api.sandbox.push.apple.com for sandbox ones when unset. For tests and private gateways; not subject to the SSRF guard."
        ),
        .init(
            name: "TIDINGS_FCM_URL", defaultValue: "https://fcm.googleapis.com",
            summary: "FCM HTTP v1 base URL. For tests and private gateways; not subject to the SSRF guard."),
        .init(
            name: "TIDINGS_VAPID_PRIVATE_KEY", defaultValue: "(generated in TIDINGS_DATA_DIR without TIDINGS_DATABASE_URL)",
            summary:
                "The deployment's VAPID key for Web Push to browsers: a P-256 private key as PEM (line breaks real or \\n) or the base64url private scalar (`npx web-push generate-vapid-keys`). Unset with TIDINGS_DATABASE_URL: web push is off. The same on every replica; browsers subscribe with its public half."
        ),
        .init(
            name: "TIDINGS_VAPID_SUBJECT",
            defaultValue: "(required with TIDINGS_VAPID_PRIVATE_KEY; mailto:admin@localhost for a generated key)",
            summary: "The VAPID contact push services may write to: a mailto: or https: URI, e.g. mailto:ops@example.com."),
        .init(
            name: "TIDINGS_PUSH_CA_FILE", defaultValue: "(none)",
            summary:
                "PEM file of extra CA certificates trusted for APNs, FCM, service-account token endpoints and Web Push endpoints (TLS is always verified)."
        ),
        .init(
            name: "TIDINGS_PUSH_TIMEOUT", defaultValue: "30s",
            summary: "Time one request to a push service may take (at most 10m)."),
        .init(
            name: "TIDINGS_PUSH_RETRY_SCHEDULE", defaultValue: "1s,5s,30s,2m,10m,30m",
            summary:
                "Delay before each retry of a push the service could not take (429, 5xx, network; ±20% jitter); its length is the number of retries. Retry-After is honoured up to the longest step."
        ),
        .init(
            name: "TIDINGS_PUSH_COALESCE", defaultValue: "50ms",
            summary: "How long a new badge push waits so that a burst of count changes goes out as one push with the final count."),
        .init(
            name: "TIDINGS_PUSH_SYNC_BUDGET", defaultValue: "3/1h",
            summary:
                "Background (sync) pushes per device, as count/duration: past it the newest waits and then carries the latest change (Apple throttles background pushes)."
        ),
        .init(
            name: "TIDINGS_EVENT_RETENTION", defaultValue: "30d",
            summary:
                "Events, their deliveries and attempts, and finished pushes, older than this are pruned in the background (pushes kept at least for the sync budget's period)."
        ),
        .init(
            name: "TIDINGS_RESOURCES_DIR", defaultValue: "(auto)",
            summary:
                "Folder holding migrations/, schema/functions/, openapi.yaml and dashboard/; found next to the working directory or the executable when unset."
        ),
        .init(
            name: "TIDINGS_DASHBOARD", defaultValue: "true",
            summary: "false turns off the dashboard served at / and /ui/ on TIDINGS_LISTEN (the API stays)."),
    ]

    /// The text `tidings --help` prints.
    package static var helpText: String {
        let width = all.map(\.name.count).max() ?? 0
        var text = """
            tidings - watches URLs, keeps unread counts, posts webhooks

            Usage:
              tidings [serve]     run the service (the default)
              tidings migrate     apply database migrations and exit
              tidings rotate-secret-key
                                  re-encrypt every stored secret under TIDINGS_SECRET_KEY
                                  (after a key rotation; safe while Tidings runs)
              tidings --help      show this text
              tidings --version   print the version

            Environment:

            """
        for variable in all {
            let padding = String(repeating: " ", count: width - variable.name.count)
            text += "  \(variable.name)\(padding)  \(variable.summary) Default: \(variable.defaultValue).\n"
        }
        text += "\nDurations are written like 500ms, 15s, 5m, 2h; sizes like 512KiB, 1MiB.\n"
        return text
    }
}
