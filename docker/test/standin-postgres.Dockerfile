# Stand-in for the official postgres:15 image, used by `make docker-test`
# only when that image cannot be pulled (no registry). Debian's PostgreSQL 15
# on the debian:bookworm-slim base, with the parts of the official image's
# interface that docker/compose.yaml relies on: POSTGRES_USER,
# POSTGRES_PASSWORD and POSTGRES_DB on the first start of an empty data
# volume, PGDATA at /var/lib/postgresql/data, pg_isready on PATH, TCP on 5432
# with password (scram-sha-256) authentication.
FROM debian:bookworm-slim

# No cluster at install time: the entrypoint creates one in the volume.
# hadolint ignore=DL3008
RUN mkdir -p /etc/postgresql-common \
    && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.conf \
    && apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && install -d -o postgres -g postgres -m 3777 /var/run/postgresql

ENV PATH=$PATH:/usr/lib/postgresql/15/bin \
    PGDATA=/var/lib/postgresql/data
COPY standin-postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
EXPOSE 5432
# Fast shutdown, as the official image: SIGINT rolls back open transactions.
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
