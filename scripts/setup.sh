#!/usr/bin/env bash
# Set up everything OpenLegion needs on this machine, idempotently:
#   Node check → pnpm 10 → dependencies → build → (unless --no-docker) Docker engine + agent image.
set -euo pipefail
cd "$(dirname "$0")/.."

with_docker=1
for arg in "$@"; do
  case "$arg" in
    --no-docker) with_docker=0 ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

step() { printf '\n==> %s\n' "$*" >&2; }

step "checking Node.js"
node -e '
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    console.error(`openlegion needs Node.js >= 20.19 (found ${process.versions.node})`);
    process.exit(1);
  }'

# corepack cannot verify pnpm's signatures here, so install pnpm 10 from the registry when missing.
if ! pnpm --version 2>/dev/null | grep -q '^10\.'; then
  step "installing pnpm 10"
  npm install -g pnpm@10 >/dev/null 2>&1 || {
    echo "setup: could not install pnpm globally; try: npm install -g pnpm@10 (as root or with a user prefix)" >&2
    exit 1
  }
fi

step "installing dependencies"
CI=true pnpm install --frozen-lockfile --reporter=append-only 2>&1 | grep -vE '^\s*$|Progress:' | tail -n 5

step "building"
pnpm -s build

if [ "$with_docker" = 1 ]; then
  step "checking the Docker engine"
  bash scripts/ensure-docker.sh
  step "building the agent image"
  bash scripts/build-agent-image.sh >/dev/null
fi
echo "setup done" >&2
