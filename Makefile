# Tidings: `make run` serves, `make test` tests. Both install what they need.

SWIFT ?= swift
RUNTIME_PACKAGES := pkg-config libmicrohttpd-dev libcurl4-openssl-dev libssl-dev libpq-dev libxml2-dev libpsl-dev libjemalloc-dev zlib1g-dev postgresql
BENCH_PACKAGES := wrk

.PHONY: run test lint api-check contract-test hostile-test browser-test docker-test docker-clean build release deps bench clean fuzz test-sanitize

deps:
	@scripts/install-deps.sh $(RUNTIME_PACKAGES)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product tidings

# Serves on 127.0.0.1:8080 with a private PostgreSQL in ./.tidings unless
# TIDINGS_DATABASE_URL is set. Ctrl-C stops both cleanly.
run: release
	exec "$$($(SWIFT) build -c release --show-bin-path)/tidings"

# Starts a throwaway PostgreSQL, runs the whole suite, stops it; then holds
# TidingsKit's public API to its checked-in dump (decision 0047) and drives
# the dashboard in Chromium (decision 0054).
test: deps
	scripts/run-tests.sh
	scripts/api-check.sh
	scripts/browser-test.sh

# Holds Sources, Tests and Package.swift to .swift-format (swift format in
# the toolchain; no build, no network). Fails on any finding;
# scripts/format.sh fixes nearly all of them in place.
lint:
	$(SWIFT) format lint --strict --recursive --parallel Sources Tests Package.swift

# The dashboard in Debian's Chromium, driven by Playwright, against a real
# Tidings; screenshots in .build/browser-test/ (decision 0054).
browser-test: deps
	scripts/browser-test.sh

# TidingsKit's API against scripts/api/TidingsKit.json, its doc comments and
# DocC catalog. After an intended change: scripts/api-check.sh --update.
api-check:
	scripts/api-check.sh

# Builds the libFuzzer binary (.build-fuzz) and runs every fuzz target for
# FUZZ_SECONDS each, or only FUZZ_TARGETS (docs/FUZZING.md). CI runs
# `make fuzz FUZZ_SECONDS=5`.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh $(FUZZ_TARGETS)

# The whole suite under AddressSanitizer, then ThreadSanitizer, each in its
# own build path (.build-asan, .build-tsan) so `make test`'s build stays,
# one test target per process as in `make test`. The TSan half runs even if
# a target failed under ASan (timing tests often do, at the sanitizers'
# speed); the target fails if either half did.
# Suppressions (toolchain findings only) are in scripts/sanitizers.
test-sanitize: deps
	status=0; \
	TIDINGS_TEST_SANITIZER=address TIDINGS_TEST_SWIFT_FLAGS="--sanitize=address --scratch-path .build-asan" \
	ASAN_OPTIONS=suppressions=$(CURDIR)/scripts/sanitizers/asan.supp \
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/sanitizers/lsan.supp \
	    scripts/run-tests.sh || status=1; \
	TIDINGS_TEST_SANITIZER=thread TIDINGS_TEST_SWIFT_FLAGS="--sanitize=thread --scratch-path .build-tsan" \
	TSAN_OPTIONS=suppressions=$(CURDIR)/scripts/sanitizers/tsan.supp \
	    scripts/run-tests.sh || status=1; \
	exit $$status

# Holds a live server to openapi.yaml (openapi-spec-validator, schemathesis).
contract-test: deps
	scripts/contract-test.sh

# A real Tidings against a hostile origin, receiver and malformed clients
# (scripts/hostile): each may fail its own work, and nothing else.
hostile-test: deps
	scripts/hostile-test.sh

# Builds docker/Dockerfile and runs docker/compose.yaml on a private Docker
# engine (stand-in base images when no registry answers): smoke test through
# the published port, two replicas, migrate, down -v. docker/README.md.
docker-test:
	scripts/docker-test.sh

# The images, debootstrap output and lint tools docker-test keeps between runs.
docker-clean:
	rm -rf .cache/docker

bench: deps
	@scripts/install-deps.sh $(BENCH_PACKAGES)
	bench/http.sh
	bench/api.sh

clean:
	rm -rf .build .build-fuzz .build-asan .build-tsan
