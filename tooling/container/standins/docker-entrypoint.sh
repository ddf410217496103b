#!/bin/sh
# The official postgres image's entry point, in short: on a first start (an empty PGDATA) it makes
# the cluster with POSTGRES_USER (default postgres) and POSTGRES_PASSWORD, creates POSTGRES_DB, and
# lets password logins in from any address; then it runs the command as the postgres user, as PID 1.
set -eu
if [ "${1:-}" = "postgres" ]; then
  user="${POSTGRES_USER:-postgres}"
  mkdir -p "$PGDATA"
  chown postgres:postgres "$PGDATA"
  chmod 700 "$PGDATA"
  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile=$(mktemp)
    printf '%s\n' "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}" > "$pwfile"
    chown postgres "$pwfile"
    setpriv --reuid=postgres --regid=postgres --init-groups \
      initdb --username="$user" --pwfile="$pwfile" --auth=scram-sha-256 -D "$PGDATA" > /dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
    db="${POSTGRES_DB:-$user}"
    if [ "$db" != "postgres" ]; then
      echo "CREATE DATABASE \"$db\" OWNER \"$user\";" |
        setpriv --reuid=postgres --regid=postgres --init-groups postgres --single -D "$PGDATA" postgres > /dev/null
    fi
  fi
  # /run is a fresh tmpfs in a container, without Debian's /run/postgresql: the socket goes to /tmp.
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$@" -c unix_socket_directories=/tmp
fi
exec "$@"
