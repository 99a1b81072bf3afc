# Stand-in for the official swift:6.3-bookworm image, used by
# `make docker-test` only when that image cannot be pulled (no registry):
# the debian:bookworm-slim base with the packages the official image installs
# for `swift build` and this machine's own Swift toolchain in /usr, where
# the official image has it. The build context is the toolchain's usr tree
# (scripts/docker-standins.sh passes it).
FROM debian:bookworm-slim

# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        binutils ca-certificates git gnupg2 libc6-dev libcurl4-openssl-dev libedit2 \
        libgcc-12-dev libncurses-dev libpython3-dev libsqlite3-0 libstdc++-12-dev \
        libxml2-dev libz3-dev pkg-config tzdata unzip zlib1g-dev \
    && rm -rf /var/lib/apt/lists/*

COPY . /usr/
