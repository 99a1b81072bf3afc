#!/bin/bash
# Entrypoint of the postgres:15 stand-in (standin-postgres.Dockerfile): on an
# empty $PGDATA, creates a cluster whose superuser is $POSTGRES_USER with
# $POSTGRES_PASSWORD and a database $POSTGRES_DB, then runs PostgreSQL as the
# postgres user in the foreground, listening on every address.
set -euo pipefail

if [ "${1:-postgres}" != postgres ]; then
    exec "$@"
fi
shift || true

user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

install -d -o postgres -g postgres -m 0700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "POSTGRES_PASSWORD must be set to initialise $PGDATA" >&2
        exit 1
    fi
    password_file=$(mktemp)
    chown postgres "$password_file"
    printf '%s\n' "$POSTGRES_PASSWORD" > "$password_file"
    as_postgres initdb --pgdata="$PGDATA" --username="$user" --pwfile="$password_file" \
        --encoding=UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256
    rm -f "$password_file"
    echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
    if [ "$database" != postgres ]; then
        # Unix socket only while the database is created: no client can
        # connect before the server announces itself ready.
        as_postgres pg_ctl --pgdata="$PGDATA" --wait --silent \
            --options="-c listen_addresses=''" start
        # psql interpolates :"name" (quoted identifier) on stdin, not in --command.
        echo 'CREATE DATABASE :"name"' | as_postgres psql --username="$user" --dbname=postgres \
            --set=ON_ERROR_STOP=1 --quiet --set=name="$database"
        as_postgres pg_ctl --pgdata="$PGDATA" --wait --silent --mode=fast stop
    fi
fi

exec setpriv --reuid=postgres --regid=postgres --init-groups \
    postgres -D "$PGDATA" -c listen_addresses='*' "$@"
