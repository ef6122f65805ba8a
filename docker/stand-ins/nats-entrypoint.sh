#!/bin/sh
# As the upstream nats image: options alone mean nats-server. Runs as the nats user, owning /data.
set -eu
if [ "${1#-}" != "$1" ]; then set -- nats-server "$@"; fi
if [ "$1" = nats-server ] && [ "$(id -u)" = 0 ]; then
  chown -R nats:nats /data
  exec setpriv --reuid=nats --regid=nats --init-groups "$@"
fi
exec "$@"
