#!/usr/bin/env bash
# Decide which services `make test` runs against and print `export` lines for them.
# PostgreSQL and Redis are used when reachable, started when installed but down, and otherwise left out
# (the suite then runs on SQLite and skips integration tests, naming them) — except with CI=true,
# where a missing service is an error.
set -u
ci=false
case "${CI:-}" in 1|true|TRUE|yes) ci=true ;; esac
note() { printf 'services: %s\n' "$*" >&2; }

pg_ready() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
redis_ready() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if [ -z "${DATABASE_URL:-}" ]; then
  if ! pg_ready && command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    note "PostgreSQL is installed but down: starting it"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start >&2 || true
    for _ in $(seq 1 30); do pg_ready && break; sleep 1; done
  fi
  if pg_ready; then
    echo "export DATABASE_URL=postgres://postgres@127.0.0.1:5432/docgate"
  elif $ci; then
    note "CI=true and PostgreSQL is not available"; exit 1
  else
    note "PostgreSQL not available: running on SQLite; integration tests will be skipped"
  fi
fi

if [ -z "${REDIS_URL:-}" ]; then
  if ! redis_ready && command -v redis-server >/dev/null 2>&1; then
    note "Redis is installed but down: starting it"
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log >&2 || true
    for _ in $(seq 1 30); do redis_ready && break; sleep 1; done
  fi
  if redis_ready; then
    # Database 15 keeps test messages apart from a developer's running DocGate.
    echo "export REDIS_URL=redis://127.0.0.1:6379/15"
  elif $ci; then
    note "CI=true and Redis is not available"; exit 1
  else
    note "Redis not available: integration tests will be skipped"
  fi
fi
