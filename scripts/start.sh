#!/usr/bin/env bash
# Set up this machine (idempotent) and start the fleet in mesh.yaml in the foreground.
# Extra arguments go to `openlegion start` (e.g. --detach, --runtime process, --config other.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
setup_args=()
# Agents as local processes need no Docker engine or image: skip that part of the setup.
prev=""
for arg in "$@"; do
  if [ "$arg" = "--runtime=process" ] || { [ "$prev" = "--runtime" ] && [ "$arg" = "process" ]; }; then
    setup_args=(--no-docker)
  fi
  prev="$arg"
done
bash scripts/setup.sh "${setup_args[@]}"
exec node packages/cli/bundle/bin.mjs start "$@"
