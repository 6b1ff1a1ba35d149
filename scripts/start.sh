#!/usr/bin/env bash
# Set up this machine (idempotent) and start the fleet in mesh.yaml in the foreground.
# Extra arguments go to `openlegion start` (e.g. --detach, --runtime process, --config other.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
setup_args=()
for arg in "$@"; do [ "$arg" = "process" ] && setup_args=(--no-docker); done
bash scripts/setup.sh "${setup_args[@]}"
exec node packages/cli/dist/bin.js start "$@"
