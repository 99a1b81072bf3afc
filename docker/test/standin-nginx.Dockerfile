# Stand-in for the official nginx:1.30 image, used by `make docker-test` only
# when that image cannot be pulled (no registry): Debian's nginx on the
# debian:bookworm-slim base, configured as the official image is for
# docker/compose.yaml: every /etc/nginx/conf.d/*.conf is loaded, no other
# site, logs on the container's stdout and stderr, nginx in the foreground.
FROM debian:bookworm-slim

# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/* \
    && ln -sf /dev/stdout /var/log/nginx/access.log \
    && ln -sf /dev/stderr /var/log/nginx/error.log

EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
