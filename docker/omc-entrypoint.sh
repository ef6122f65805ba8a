#!/bin/sh
# NAME_FILE=/path sets NAME from that file, for secrets mounted as files (docker compose's generated
# keys), for the names listed here only; then runs the image's command itself.
set -eu
for name in JWT_PUBLIC_KEY JWT_PRIVATE_KEY DATABASE_URL REDIS_URL NATS_URL BOOTSTRAP_ADMIN_PASSWORD \
  BRAINTREE_PRIVATE_KEY PAYPAL_CLIENT_SECRET SERVICE_PRIVATE_KEY AUTH_SERVICE_PUBLIC_KEY \
  GAME_SERVICE_PUBLIC_KEY PAYMENTS_SERVICE_PUBLIC_KEY; do
  eval "path=\${${name}_FILE:-}"
  if [ -n "$path" ]; then
    value=$(cat "$path")
    export "$name=$value"
    unset "${name}_FILE"
  fi
done
exec "$@"
