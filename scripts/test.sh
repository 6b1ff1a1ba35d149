#!/usr/bin/env bash
# Set up this machine (idempotent) and run every check and test: lint, typecheck, unit,
# integration (real SQLite, real HTTP, real Docker) and e2e (the CLI against real containers).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
printf '\n==> lint and typecheck (tests included)\n' >&2
pnpm -s lint
pnpm -s typecheck
printf '\n==> tests\n' >&2
pnpm -s vitest run --reporter=default
