#!/bin/sh
# The upstream postgres image's contract, in short: as root, own the data folder and run as postgres; on
# an empty PGDATA, initdb with POSTGRES_USER/POSTGRES_PASSWORD, create POSTGRES_DB, run
# /docker-entrypoint-initdb.d/*.sql and *.sh on a socket-only server, then start listening on all addresses.
set -eu
if [ "${1#-}" != "$1" ]; then set -- postgres "$@"; fi
if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 0700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  method="${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}"
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$method" != trust ]; then
    echo 'POSTGRES_PASSWORD is required (or POSTGRES_HOST_AUTH_METHOD=trust)' >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s\n' "${POSTGRES_PASSWORD:-}" > "$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --auth-local=trust --auth-host="$method" >/dev/null
  rm -f "$pwfile"
  echo "host all all all $method" >> "$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -k /var/run/postgresql" -w start >/dev/null
  if [ "$db" != postgres ]; then psql -v ON_ERROR_STOP=1 -h /var/run/postgresql -U "$user" -d postgres -c "CREATE DATABASE \"$db\""; fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sql) psql -v ON_ERROR_STOP=1 -h /var/run/postgresql -U "$user" -d "$db" -f "$f" ;;
      *.sh) . "$f" ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo 'PostgreSQL init process complete; ready for start up.'
fi
exec "$@"
