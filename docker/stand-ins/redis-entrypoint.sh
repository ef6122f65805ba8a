#!/bin/sh
# As the upstream redis image: options alone mean redis-server; without a config file, protected mode is
# off (the container's network is the boundary); runs as the redis user, owning /data.
set -eu
if [ "${1#-}" != "$1" ]; then set -- redis-server "$@"; fi
if [ "$1" = redis-server ]; then
  case "${2:-}" in
    *.conf) ;;
    *) shift; set -- redis-server --protected-mode no "$@" ;;
  esac
  if [ "$(id -u)" = 0 ]; then
    chown -R redis:redis /data
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi
exec "$@"
