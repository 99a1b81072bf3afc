#!/usr/bin/env bash
# A private Docker engine for `make docker-test`: Debian's dockerd with its
# own data root, exec root, pidfile and socket, so it neither needs nor
# touches a system Docker. (docker/README.md, "What was found on the
# project's machines", says which options work here and why these.)
#   scripts/docker-engine.sh start STATE_DIR DATA_ROOT   prints the DOCKER_HOST to use
#   scripts/docker-engine.sh stop STATE_DIR
# STATE_DIR holds the socket, exec root, pidfile and log (keep its path short:
# a unix socket path has at most 107 bytes). DATA_ROOT holds images and
# layers, one subfolder per storage driver, and may be kept between runs.
# Environment (optional):
#   TIDINGS_DOCKER_STORAGE_DRIVERS  drivers to try in order (default
#                                   "overlay2 fuse-overlayfs vfs")
#   TIDINGS_DOCKER_IPTABLES         "true" lets dockerd manage iptables, NAT
#                                   and IP forwarding as a system engine
#                                   does (default "false": host untouched)
#   TIDINGS_DOCKER_CLI              the docker client (default /usr/bin/docker,
#                                   from the same package as dockerd)
set -euo pipefail

# The client of the same Debian package as dockerd, whatever else is on PATH.
docker() { command "${TIDINGS_DOCKER_CLI:-/usr/bin/docker}" "$@"; }

usage() { echo "usage: $0 start STATE_DIR DATA_ROOT | stop STATE_DIR" >&2; exit 2; }

# Every process of this engine (dockerd, its containerd, the shims) names
# STATE_DIR on its command line: that finds them by id, and no other.
engine_pids() {
    local state_dir=$1 pid
    for pid in $(ls /proc | grep -E '^[0-9]+$'); do
        [ "$pid" = $$ ] && continue
        if tr '\0' ' ' 2>/dev/null < "/proc/$pid/cmdline" | grep -F -- "$state_dir/" >/dev/null; then
            echo "$pid"
        fi
    done
}

unmount_below() {
    local dir=$1
    # Deepest first; dockerd leaves its network namespace bind mount behind.
    awk -v dir="$dir/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | sort -r | while read -r mount_point; do
        umount "$mount_point" 2>/dev/null || umount -l "$mount_point" 2>/dev/null || true
    done
}

stop_engine() {
    local state_dir=$1 pid
    if [ -s "$state_dir/dockerd.pid" ]; then
        pid=$(cat "$state_dir/dockerd.pid")
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid"
            # dockerd stops its containers and its containerd before it exits.
            for _ in $(seq 1 300); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
        fi
    fi
    # Whatever survived a hard failure.
    for pid in $(engine_pids "$state_dir"); do
        kill -KILL "$pid" 2>/dev/null || true
    done
    rm -f "$state_dir/dockerd.pid"
    unmount_below "$state_dir"
    # Container file systems a killed dockerd could not unmount.
    if [ -s "$state_dir/data-root" ]; then
        unmount_below "$(cat "$state_dir/data-root")"
    fi
}

start_engine() {
    local state_dir=$1 data_root=$2
    local socket=$state_dir/docker.sock
    local drivers=${TIDINGS_DOCKER_STORAGE_DRIVERS:-overlay2 fuse-overlayfs vfs}
    local network_options=(--bridge=none --iptables=false --ip-forward=false --ip-masq=false)
    if [ "${TIDINGS_DOCKER_IPTABLES:-false}" = true ]; then
        network_options=()
    fi
    if [ ${#socket} -gt 100 ]; then
        echo "$socket: too long for a unix socket path" >&2
        exit 1
    fi
    mkdir -p "$state_dir" "$data_root"
    data_root=$(cd "$data_root" && pwd)
    echo "$data_root" > "$state_dir/data-root"
    local driver pid
    for driver in $drivers; do
        if [ "$driver" = fuse-overlayfs ] && ! command -v fuse-overlayfs >/dev/null; then
            continue
        fi
        mkdir -p "$data_root/$driver"
        echo "starting dockerd (storage driver $driver)" >&2
        setsid dockerd \
            --data-root "$data_root/$driver" \
            --exec-root "$state_dir/exec" \
            --pidfile "$state_dir/dockerd.pid" \
            --host "unix://$socket" \
            --storage-driver "$driver" \
            "${network_options[@]}" \
            </dev/null >>"$state_dir/dockerd.log" 2>&1 &
        pid=$!
        for _ in $(seq 1 600); do
            if ! kill -0 "$pid" 2>/dev/null; then
                break
            fi
            if DOCKER_HOST=unix://$socket docker version >/dev/null 2>&1; then
                echo "unix://$socket"
                return 0
            fi
            sleep 0.1
        done
        echo "dockerd did not start with storage driver $driver; its log ends:" >&2
        tail -n 5 "$state_dir/dockerd.log" >&2
        stop_engine "$state_dir"
    done
    echo "no storage driver of \"$drivers\" works here" >&2
    exit 1
}

[ $# -ge 2 ] || usage
case $1 in
    start) [ $# -eq 3 ] || usage; start_engine "$2" "$3" ;;
    stop) stop_engine "$2" ;;
    *) usage ;;
esac
