// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Tidings",
    // The server is Linux only: the wrappers use glibc (adaptive mutexes,
    // pthreads) and Debian's C libraries. The platforms below are those of
    // TidingsKit, the client library apps add (Foundation only; Duration
    // and Task.sleep(for:) need these versions).
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .executable(name: "tidings", targets: ["tidings"]),
        // The app's half: devices, watches, badge, sync feed, event stream.
        .library(name: "TidingsKit", targets: ["TidingsKit"]),
    ],
    targets: [
        // C bindings: system libraries located through pkg-config.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CPSL",
            pkgConfig: "libpsl",
            providers: [.apt(["libpsl-dev"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // Prefixed C helpers for the variadic and macro APIs Swift cannot call.
        .target(
            name: "CTidingsShims",
            dependencies: ["CMicroHTTPD", "CCurl"]
        ),

        // Thread naming, ids and priority: pthread_setname_np and gettid are
        // declared by glibc only under _GNU_SOURCE.
        .target(name: "CTidingsThread"),

        // Wrappers: the only Swift modules that import C.
        .target(
            name: "TidingsCrypto",
            dependencies: ["CCrypto"]
        ),
        .target(name: "TidingsSynchronization", dependencies: ["CTidingsThread"]),
        // The one JSON writer (responses, logs, webhook bodies, batch rows).
        .target(name: "TidingsJSON"),
        .target(name: "TidingsObservability", dependencies: ["TidingsJSON", "TidingsSynchronization"]),
        // IP addresses and CIDR networks: the server's client addresses and
        // trusted proxies, the HTTP client's SSRF guard.
        .target(name: "TidingsIP"),
        .target(
            name: "TidingsHTTPServer",
            dependencies: ["CMicroHTTPD", "CTidingsShims", "TidingsIP", "TidingsJSON", "TidingsObservability", "TidingsSynchronization"]
        ),
        .target(
            name: "TidingsHTTPClient",
            dependencies: ["CCurl", "CPSL", "CTidingsShims", "TidingsIP", "TidingsObservability", "TidingsSynchronization"]
        ),
        // Imported backups: one zip entry read with raw inflate, bounded.
        .target(name: "TidingsCompression", dependencies: ["CZlib"]),
        .target(
            name: "TidingsExtraction",
            dependencies: ["CLibXML2", "TidingsCrypto", "TidingsJSON", "TidingsSynchronization"]
        ),
        .target(
            name: "TidingsPostgres",
            dependencies: ["CLibPQ", "TidingsCrypto", "TidingsObservability", "TidingsSynchronization"]
        ),
        // The private PostgreSQL server of `make run`: initdb, start, stop,
        // as the postgres account when running as root.
        .target(
            name: "TidingsLocalPostgres",
            dependencies: ["TidingsCrypto", "TidingsObservability", "TidingsPostgres"]
        ),

        // Domain: users, devices, watches, webhooks and their SQL; no C.
        .target(
            name: "TidingsDomain",
            dependencies: [
                "TidingsCompression", "TidingsCrypto", "TidingsExtraction", "TidingsJSON", "TidingsObservability", "TidingsPostgres",
                // APNsEnvironment: a push app's, stored and sent to (decision 0053).
                "TidingsPush", "TidingsSynchronization",
            ]
        ),

        // Engines: long-running work on dedicated threads (change
        // detection, webhook delivery).
        .target(
            name: "TidingsPoller",
            dependencies: [
                "TidingsDomain", "TidingsExtraction", "TidingsHTTPClient", "TidingsObservability", "TidingsPostgres",
                "TidingsSynchronization",
            ]
        ),
        // Direct push: APNs and FCM over HTTP/2 (Transport/: credentials,
        // requests, answers). No database: the push engine drives it.
        .target(
            name: "TidingsPush",
            dependencies: ["TidingsCrypto", "TidingsHTTPClient", "TidingsJSON", "TidingsObservability", "TidingsSynchronization"]
        ),
        // The outbox engines: webhook deliveries and direct pushes.
        .target(
            name: "TidingsDispatcher",
            dependencies: [
                "TidingsCrypto", "TidingsDomain", "TidingsHTTPClient", "TidingsJSON", "TidingsObservability", "TidingsPostgres",
                "TidingsPush", "TidingsSynchronization",
            ]
        ),

        // Edge and wiring: REST handlers, configuration, start-up and shutdown.
        .target(
            name: "TidingsApp",
            dependencies: [
                "TidingsCrypto",
                "TidingsDomain",
                "TidingsDispatcher",
                "TidingsExtraction",
                "TidingsObservability",
                "TidingsHTTPServer",
                "TidingsHTTPClient",
                "TidingsIP",
                "TidingsJSON",
                "TidingsLocalPostgres",
                "TidingsPoller",
                "TidingsPostgres",
                "TidingsPush",
                "TidingsSynchronization",
            ]
        ),
        .executableTarget(
            name: "tidings",
            dependencies: ["TidingsApp"],
            // jemalloc replaces glibc's malloc for the whole process
            // (decision 0033): on the mixed poller workload it kept RSS at
            // a third and cost 5 % less CPU per check. Not in sanitizer
            // builds (make test-sanitize sets TIDINGS_TEST_SANITIZER): the
            // test bundle links this target too, and the sanitizer's
            // allocator must serve every malloc.
            linkerSettings: Context.environment["TIDINGS_TEST_SANITIZER"] == nil ? [.linkedLibrary("jemalloc")] : []
        ),

        // The client library for apps (docs/decisions/0047-tidingskit.md):
        // Foundation only, none of the modules above, so an app that adds
        // the package builds no server code.
        .target(name: "TidingsKit"),
        // `swift run tidings-example --url ... --key ...`: the README's walk-through.
        // Under Sources/ so that the image's build context (Sources, Tests)
        // holds every target's folder.
        .executableTarget(name: "tidings-example", dependencies: ["TidingsKit"]),

        // Small real HTTP servers (origins, receivers) shared by the test targets.
        .target(
            name: "TidingsTestSupport",
            dependencies: ["TidingsHTTPClient", "TidingsHTTPServer", "TidingsObservability", "TidingsPostgres", "TidingsSynchronization"],
            path: "Tests/TidingsTestSupport"
        ),
        .testTarget(
            name: "TidingsCryptoTests",
            // TidingsJSON writes the VAPID claims, as a caller must.
            dependencies: ["TidingsCrypto", "TidingsJSON"]
        ),
        .testTarget(
            name: "TidingsIPTests",
            dependencies: ["TidingsIP"]
        ),
        .testTarget(
            name: "TidingsJSONTests",
            dependencies: ["TidingsJSON"]
        ),
        .testTarget(
            name: "TidingsSynchronizationTests",
            dependencies: ["TidingsSynchronization", "TidingsTestSupport"]
        ),
        .testTarget(
            name: "TidingsObservabilityTests",
            dependencies: ["TidingsObservability"]
        ),
        .testTarget(
            name: "TidingsHTTPServerTests",
            dependencies: ["TidingsHTTPServer", "TidingsIP", "TidingsObservability", "TidingsSynchronization", "TidingsTestSupport"]
        ),
        .testTarget(
            name: "TidingsHTTPClientTests",
            dependencies: ["TidingsHTTPClient", "TidingsIP", "TidingsObservability", "TidingsTestSupport"]
        ),
        .testTarget(
            name: "TidingsPushTests",
            dependencies: [
                "TidingsPush", "TidingsCrypto", "TidingsHTTPClient", "TidingsObservability", "TidingsSynchronization", "TidingsTestSupport",
            ]
        ),
        .testTarget(
            name: "TidingsExtractionTests",
            dependencies: ["TidingsExtraction", "TidingsCrypto", "TidingsSynchronization", "TidingsTestSupport"]
        ),
        // The domain's pure logic (normalization, cursors, leases): no database.
        .testTarget(
            name: "TidingsDomainTests",
            dependencies: ["TidingsDomain"]
        ),
        .testTarget(
            name: "TidingsPostgresTests",
            dependencies: ["TidingsPostgres", "TidingsObservability", "TidingsSynchronization", "TidingsTestSupport"]
        ),
        .testTarget(
            name: "TidingsLocalPostgresTests",
            dependencies: ["TidingsLocalPostgres", "TidingsObservability", "TidingsPostgres", "TidingsTestSupport"]
        ),
        .testTarget(
            name: "TidingsPollerTests",
            dependencies: [
                "TidingsPoller", "TidingsCrypto", "TidingsDomain", "TidingsHTTPClient", "TidingsIP", "TidingsPostgres",
                "TidingsObservability", "TidingsTestSupport",
            ]
        ),
        // The outbox engines' parts (slots, retries, pruning, writes):
        // no application, no HTTP server.
        .testTarget(
            name: "TidingsDispatcherTests",
            dependencies: [
                "TidingsDispatcher", "TidingsDomain", "TidingsHTTPClient", "TidingsObservability", "TidingsPostgres",
                "TidingsSynchronization",
                "TidingsTestSupport",
            ]
        ),
        // A whole Tidings, in this process or as the `tidings` executable
        // in a child process (killed and restarted): webhook and push
        // delivery end to end, resilience, key rotation.
        .testTarget(
            name: "TidingsEndToEndTests",
            dependencies: [
                "TidingsApp", "TidingsCrypto", "TidingsDomain", "TidingsHTTPServer", "TidingsLocalPostgres", "TidingsObservability",
                "TidingsPostgres", "TidingsSynchronization", "TidingsTestSupport", "tidings",
            ]
        ),
        .testTarget(
            // Against a real Tidings it starts (the server's modules are
            // test-only dependencies) and against fake servers.
            name: "TidingsKitTests",
            dependencies: ["TidingsKit", "TidingsApp", "TidingsCrypto", "TidingsObservability", "TidingsTestSupport"]
        ),
        .testTarget(
            name: "TidingsAppTests",
            dependencies: [
                "TidingsApp", "TidingsCrypto", "TidingsHTTPClient", "TidingsIP", "TidingsJSON", "TidingsLocalPostgres",
                "TidingsSynchronization", "TidingsTestSupport", "tidings",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzz targets (docs/FUZZING.md): one libFuzzer binary that
// runs the target named by TIDINGS_FUZZ_TARGET. Declared only when
// TIDINGS_FUZZ is set (scripts/fuzz.sh does), so `swift build` and
// `swift test` neither build nor link it: it links only with
// -sanitize=fuzzer and reaches internals through @testable imports, which
// need a debug build.
if Context.environment["TIDINGS_FUZZ"] != nil {
    package.targets.append(
        .executableTarget(
            name: "TidingsFuzz",
            dependencies: [
                "TidingsApp", "TidingsCompression", "TidingsDomain", "TidingsExtraction", "TidingsHTTPClient", "TidingsHTTPServer",
                "TidingsIP",
                "TidingsJSON", "TidingsObservability", "TidingsPoller", "TidingsPostgres", "TidingsCrypto", "TidingsPush",
            ],
            path: "Fuzz/Sources/TidingsFuzz",
            // No Swift entry point: Fuzz/Sources/TidingsFuzz/FuzzMain.swift.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ))
}

// The Web Push crypto benchmark (bench/webpush-crypto.sh): a release
// executable timing encryption and VAPID tokens. Declared only when
// TIDINGS_BENCH_CRYPTO is set (the script sets it), so `swift build` and
// `swift test` neither build nor link it.
if Context.environment["TIDINGS_BENCH_CRYPTO"] != nil {
    package.targets.append(
        .executableTarget(
            name: "TidingsCryptoBench",
            dependencies: ["TidingsCrypto", "TidingsJSON"],
            path: "bench/webpush-crypto"
        ))
}

// The idle-streams benchmark's server (bench/streams.sh): declared only
// when TIDINGS_BENCH_STREAMS is set, so `swift build` and `swift test`
// neither build nor link it. Linked with jemalloc, as `tidings` is.
if Context.environment["TIDINGS_BENCH_STREAMS"] != nil {
    package.targets.append(
        .executableTarget(
            name: "TidingsStreamBench",
            dependencies: ["TidingsHTTPServer", "TidingsObservability", "TidingsSynchronization"],
            path: "bench/stream-server",
            linkerSettings: [.linkedLibrary("jemalloc")]
        ))
}

// Swift 6 upcoming features on every Swift target (issue 31), the fuzz
// and benchmark targets above included: this loop comes after every
// declaration so that none is left out. Set here in one place rather than
// in each target; system libraries take no Swift settings.
let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + upcomingFeatures
}
