#!/usr/bin/env bash
# Gives the Docker engine at DOCKER_HOST the four images docker/Dockerfile
# and docker/compose.yaml start from: debian:bookworm-slim, swift:6.3-bookworm,
# postgres:15 and nginx:1.30. An image the engine already has is kept; a
# missing one is pulled; only when the pull fails (no registry, as on the
# project's machines) is a stand-in made under the same name:
#   debian:bookworm-slim  debootstrap --variant=minbase bookworm, docker import
#   swift:6.3-bookworm    docker/test/standin-swift.Dockerfile: that base, the
#                         official image's build packages and this machine's
#                         Swift toolchain
#   postgres:15           docker/test/standin-postgres.Dockerfile
#   nginx:1.30            docker/test/standin-nginx.Dockerfile
# Each stand-in carries the label org.tidings.test.standin with a hash of its
# recipe and inputs (base image, toolchain version); a stand-in whose recipe
# changed is made again. The debootstrap result is kept in CACHE_DIR.
#   scripts/docker-standins.sh CACHE_DIR
# Environment (optional):
#   TIDINGS_DOCKER_PULL    "never" skips the pull attempts
#   TIDINGS_DEBIAN_MIRROR  default http://deb.debian.org/debian
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -eq 1 ] || { echo "usage: $0 CACHE_DIR" >&2; exit 2; }
cache_dir=$1
mirror=${TIDINGS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security_mirror=${mirror%/debian}/debian-security
key_label=org.tidings.test.standin

docker() { command "${TIDINGS_DOCKER_CLI:-/usr/bin/docker}" "$@"; }

hash_of() { sha256sum | cut -c1-16; }
image_id() { docker image inspect -f '{{.Id}}' "$1"; }

# Runs BUILDER IMAGE KEY when IMAGE is neither present (pulled, or a stand-in
# with this KEY) nor pullable.
ensure_image() {
    local image=$1 key=$2 builder=$3 current
    if current=$(docker image inspect -f "{{index .Config.Labels \"$key_label\"}}" "$image" 2>/dev/null); then
        if [ "$current" = "<no value>" ] || [ -z "$current" ]; then
            echo "$image: present" >&2
            return
        fi
        if [ "$current" = "$key" ]; then
            echo "$image: stand-in present" >&2
            return
        fi
    fi
    if [ "${TIDINGS_DOCKER_PULL:-auto}" != never ] && timeout 300 docker pull --quiet "$image" >/dev/null 2>&1; then
        echo "$image: pulled" >&2
        return
    fi
    echo "$image: cannot be pulled, making a stand-in" >&2
    local started=$SECONDS
    "$builder" "$image" "$key"
    echo "$image: stand-in ready in $((SECONDS - started)) s" >&2
}

# A minbase bookworm configured as the official slim image is: the three
# bookworm suites as apt sources, no documentation installed by later
# packages. Validity checks of the archive follow the host's apt, whose
# mirror may be a dated snapshot.
make_debian_rootfs() {
    local rootfs=$1
    debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$cache_dir/debootstrap.log" 2>&1 || {
        tail -n 20 "$cache_dir/debootstrap.log" >&2
        return 1
    }
    rm -f "$rootfs/etc/apt/sources.list"
    cat > "$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security_mirror
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    # grep reads all of it (no -q): an early exit would fail the pipe.
    if apt-config dump | grep '^Acquire::Check-Valid-Until "false"' >/dev/null; then
        echo 'Acquire::Check-Valid-Until "false";' > "$rootfs/etc/apt/apt.conf.d/99check-valid-until"
    fi
    cat > "$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
    find "$rootfs/usr/share/doc" -type f ! -name copyright -delete
    rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
        "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
}

build_debian() {
    local image=$1 key=$2
    local tarball=$cache_dir/debian-bookworm-minbase-$key.tar
    if [ ! -s "$tarball" ]; then
        local rootfs=$cache_dir/rootfs.tmp
        rm -rf "$rootfs" "$cache_dir"/debian-bookworm-minbase-*.tar
        make_debian_rootfs "$rootfs"
        tar -C "$rootfs" --numeric-owner -cf "$tarball.tmp" .
        mv "$tarball.tmp" "$tarball"
        rm -rf "$rootfs"
    fi
    docker import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'CMD ["bash"]' \
        --change "LABEL $key_label=$key" \
        "$tarball" "$image" >/dev/null
}

# CONTEXT DOCKERFILE IMAGE KEY; host networking reaches the Debian mirror
# whether or not the engine gives its bridges a route out.
build_from() {
    local context=$1 dockerfile=$2 image=$3 key=$4
    DOCKER_BUILDKIT=0 docker build --quiet --network host --label "$key_label=$key" \
        -f "$dockerfile" -t "$image" "$context" >/dev/null
}
build_postgres() { build_from docker/test docker/test/standin-postgres.Dockerfile "$1" "$2"; }
build_nginx() { build_from docker/test docker/test/standin-nginx.Dockerfile "$1" "$2"; }

mkdir -p "$cache_dir"
debian_key=$({ declare -f make_debian_rootfs; echo "$mirror"; } | hash_of)
ensure_image debian:bookworm-slim "$debian_key" build_debian
base_id=$(image_id debian:bookworm-slim)

# The official image keeps the toolchain in /usr; here it is wherever the
# `swift` on PATH comes from (/opt/swift/usr on the project's machines).
toolchain=""
if command -v swift >/dev/null; then
    toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
fi
build_swift() {
    [ -n "$toolchain" ] || { echo "no swift on PATH: cannot make the $1 stand-in" >&2; return 1; }
    build_from "$toolchain" docker/test/standin-swift.Dockerfile "$1" "$2"
}
swift_key=$({ cat docker/test/standin-swift.Dockerfile; echo "$base_id $toolchain"; swift --version 2>&1 || true; } | hash_of)
ensure_image swift:6.3-bookworm "$swift_key" build_swift

postgres_key=$({ cat docker/test/standin-postgres.Dockerfile docker/test/standin-postgres-entrypoint.sh; echo "$base_id"; } | hash_of)
ensure_image postgres:15 "$postgres_key" build_postgres

nginx_key=$({ cat docker/test/standin-nginx.Dockerfile; echo "$base_id"; } | hash_of)
ensure_image nginx:1.30 "$nginx_key" build_nginx
