#!/usr/bin/env bash
# Set up this machine (idempotent) and run every check and test: lint, typecheck, unit,
# integration (real SQLite, real HTTP, real Docker) and e2e (the CLI against real containers).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The REPL is also tested in a real terminal: tmux drives it.
if ! command -v tmux >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  printf '\n==> installing tmux (the REPL terminal tests)\n' >&2
  apt-get install -y -qq tmux >/dev/null || { apt-get update -qq >/dev/null && apt-get install -y -qq tmux >/dev/null; }
fi
# The browser tests drive the system Chromium (Playwright never downloads one).
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  printf '\n==> installing chromium (the browser tests)\n' >&2
  apt-get install -y -qq chromium >/dev/null || { apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; }
fi
printf '\n==> lint and typecheck (tests included)\n' >&2
pnpm -s lint
pnpm -s typecheck
printf '\n==> tests\n' >&2
pnpm -s vitest run --reporter=default
