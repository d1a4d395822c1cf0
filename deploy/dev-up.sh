#!/usr/bin/env bash
# The run command: installs what is missing, starts PostgreSQL and NATS, creates the database,
# applies migrations and starts the dev stack in one process (`scribe dev`): the Daily and Whereby
# simulators and every service (gateway on http://127.0.0.1:${PORT:-1250}), signed in by password as
# the dev admin it prints. `pnpm scribe demo` then plays a meeting against it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/ensure-deps.sh

export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/scribe}"
# A development installation answers anonymous reads (production leaves PUBLIC_MODE off).
export PUBLIC_MODE="${PUBLIC_MODE:-true}"
# A development machine serves its own ICS feeds and webhook receivers on localhost (production
# leaves the SSRF guard on).
export ALLOW_PRIVATE_URLS="${ALLOW_PRIVATE_URLS:-true}"
db_name=$(node -e 'console.log(new URL(process.argv[1]).pathname.slice(1))' "$DATABASE_URL")
admin_url=$(node -e 'const u=new URL(process.argv[1]); u.pathname="/postgres"; console.log(u.toString())' "$DATABASE_URL")
if ! psql "$admin_url" -Atc "select 1 from pg_database where datname = '$db_name'" | grep -q 1; then
  echo "[scribe] creating database $db_name"
  psql "$admin_url" -qc "create database \"$db_name\""
fi

# The gateway serves the web app from services/web/dist at `/`.
pnpm -s --filter @scribe/web build >/dev/null
pnpm -s scribe migrate
exec pnpm -s scribe dev "$@"
