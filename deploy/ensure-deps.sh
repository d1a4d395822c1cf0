#!/usr/bin/env bash
# Installs what Scribe needs on a Debian machine with Node 20 and starts PostgreSQL and NATS if they
# are not running. Safe to run again: every step checks first. Used by deploy/dev-up.sh and .ci/run.
#
#   --tune-postgres  raise PostgreSQL's max_connections to what the full test suite needs (ALTER
#                    SYSTEM and a restart of the local server). Without it the script never changes
#                    a server's settings: the server may be shared; it only says what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

TUNE_POSTGRES=false
for arg in "$@"; do
  case "$arg" in
    --tune-postgres) TUNE_POSTGRES=true ;;
    *) printf 'usage: ensure-deps.sh [--tune-postgres]\n' >&2; exit 64 ;;
  esac
done

# chromium: the live-recording test drives a real browser (playwright-core, headless).
APT_PACKAGES=(ffmpeg pocketsphinx pocketsphinx-en-us espeak-ng flite sox nats-server postgresql chromium)
PNPM_VERSION=10.34.9
say() { printf '\033[1m[scribe]\033[0m %s\n' "$*"; }
port_open() { (echo > "/dev/tcp/127.0.0.1/$1") >/dev/null 2>&1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else say "need root for: $*"; return 1; fi; }

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then say "Node.js 20 or newer is required (found: $(node --version 2>/dev/null || echo none))"; exit 1; fi

missing=()
for p in "${APT_PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# RUM: ranked search takes its best candidates from a RUM index when the extension is there
# (migrations/projection/0003); without it search falls back to GIN. Its package follows the server's major.
pg_major=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1)
if [ -n "$pg_major" ] && ! dpkg -s "postgresql-$pg_major-rum" >/dev/null 2>&1; then
  say "installing postgresql-$pg_major-rum"
  as_root apt-get update -qq || true
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-$pg_major-rum" >/dev/null ||
    say "postgresql-$pg_major-rum is not available: search ranks with its GIN fallback"
fi

if ! command -v pnpm >/dev/null || [ "$(pnpm --version)" != "$PNPM_VERSION" ]; then
  say "installing pnpm $PNPM_VERSION"
  as_root npm install -g "pnpm@$PNPM_VERSION" >/dev/null 2>&1
fi

if ! port_open 5432; then
  say "starting PostgreSQL"
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -1)" main start
fi
if ! port_open 4222; then
  say "starting NATS with JetStream"
  as_root mkdir -p /var/lib/nats-server /var/log
  as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
fi
for i in $(seq 1 50); do port_open 5432 && port_open 4222 && break; sleep 0.2; done
port_open 5432 || { say "PostgreSQL did not come up on 127.0.0.1:5432"; exit 1; }
port_open 4222 || { say "NATS did not come up on 127.0.0.1:4222"; exit 1; }

# Every service keeps its own pool; tests run several whole systems at once. PostgreSQL's default of
# 100 connections is too few for that on one machine (the dev stack alone needs far fewer).
MIN_CONNECTIONS=400
ADMIN_URL=${TEST_DATABASE_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}
pg() { psql "$ADMIN_URL" -Atqc "$1"; }
connections=$(pg 'show max_connections' 2>/dev/null || echo unknown)
if [ "$connections" = unknown ]; then
  say "could not read PostgreSQL's max_connections as $(node -e 'const u=new URL(process.argv[1]); u.password=""; console.log(u.toString())' "$ADMIN_URL"); the full test suite needs $MIN_CONNECTIONS"
elif [ "$connections" -lt "$MIN_CONNECTIONS" ] && [ "$TUNE_POSTGRES" = false ]; then
  say "PostgreSQL allows $connections connections; the full test suite needs $MIN_CONNECTIONS. Left unchanged:"
  say "raise it yourself, or run deploy/ensure-deps.sh --tune-postgres (ALTER SYSTEM and a server restart)"
elif [ "$connections" -lt "$MIN_CONNECTIONS" ]; then
  say "--tune-postgres: raising PostgreSQL max_connections from $connections to $MIN_CONNECTIONS (ALTER SYSTEM, restarts the server)"
  pg "alter system set max_connections = $MIN_CONNECTIONS"
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -1)" main restart
  for i in $(seq 1 50); do port_open 5432 && pg 'select 1' >/dev/null 2>&1 && break; sleep 0.2; done
fi

say "installing dependencies"
pnpm install --frozen-lockfile --reporter=silent
