#!/bin/bash
# Container health probe: GET /readyz on the port Tidings listens on, healthy
# only on a 200 status line. Uses bash's /dev/tcp so the image needs no curl;
# Docker's HEALTHCHECK --timeout bounds a server that accepts but never answers.
set -euo pipefail

port=${TIDINGS_LISTEN##*:}
exec 3<>"/dev/tcp/127.0.0.1/${port}"
printf 'GET /readyz HTTP/1.0\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3
IFS= read -r status_line <&3
case $status_line in
    "HTTP/1."?" 200 "*) exit 0 ;;
    *) echo "readyz: ${status_line%$'\r'}" >&2; exit 1 ;;
esac
