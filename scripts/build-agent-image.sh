#!/usr/bin/env bash
# Build the agent image openlegion-agent:<version> (and :latest) from docker/agent.Dockerfile.
# Skips the build when an image of that tag already carries the same inputs hash (Dockerfile, base
# image, node binary, agent deployment). Progress goes to stderr; the final tag to stdout.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

build_dir="docker/.build"
context="$build_dir/context"
dockerfile="docker/agent.Dockerfile"
started_at="$(date +%s%N)"
# The docker client here has no buildx: use the classic builder.
export DOCKER_BUILDKIT=0

elapsed() { echo "$(( ($(date +%s%N) - started_at) / 1000000 )) ms"; }
say() { echo "openlegion: [$(elapsed)] $*" >&2; }

# Run a command quietly; on failure show the tail of its output and stop.
quietly() {
  local what="$1" log="$build_dir/$2"; shift 2
  if ! "$@" >"$log" 2>&1; then
    say "$what failed; last lines of $log:"
    tail -n 40 "$log" >&2
    exit 1
  fi
}

mkdir -p "$build_dir"
# Several tests and scripts may build at once; they share $context, so one at a time.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$build_dir/build.lock"
  flock 9
fi

bash scripts/ensure-docker.sh
base_image="$(bash docker/make-base-image.sh)"

say "compiling packages/agent…"
quietly "tsc -b packages/agent" tsc.log pnpm -s tsc -b packages/agent
if [ ! -f packages/agent/dist/main.js ]; then
  say "packages/agent/dist/main.js is missing after tsc -b; the agent package has no main entry"
  exit 1
fi

say "bundling packages/agent…"
quietly "agent bundle" bundle.log pnpm -s --filter @openlegion/agent run bundle

say "deploying @openlegion/agent into $context/app…"
rm -rf "$context"
mkdir -p "$context"
# --legacy: the workspace does not set inject-workspace-packages; the deployment still gets real
# copies of @openlegion/protocol and of better-sqlite3 with its addon built on the host.
quietly "pnpm deploy" deploy.log pnpm --filter @openlegion/agent deploy --prod --legacy "$context/app"
# better-sqlite3's compile leftovers are not needed at run time (~15 MB).
for addon in "$context"/app/node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3/build; do
  rm -rf "$addon/Release/obj" "$addon/Release/obj.target" "$addon/Release/.deps" \
    "$addon/Release/sqlite3.a" "$addon/Release/test_extension.node" "$addon/deps"
done
# Build bookkeeping (tsc's build info, pnpm's install state with its timestamp) would change the
# inputs hash without changing the program.
find "$context/app" -name '*.tsbuildinfo' -delete
rm -f "$context/app/node_modules/.modules.yaml"
cp "$(command -v node)" "$context/node"
# The MCP servers agents can run over stdio, bundled one file each (docs/tools.md, "MCP servers").
say "bundling the MCP servers the image ships…"
quietly "MCP server bundles" mcp-bundle.log node packages/agent/scripts/bundle-mcp-servers.mjs "$context/mcp"
say "hashing the build inputs…"

# Everything the image is made of: the Dockerfile, the base image, every file and link in the context.
inputs_hash="$(
  {
    echo "dockerfile $(sha256sum <"$dockerfile")"
    echo "base $(docker image inspect --format '{{.Id}}' "$base_image")"
    echo "node $(node --version)"
    (cd "$context" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    (cd "$context" && find . -type l -printf '%p -> %l\n' | LC_ALL=C sort)
  } | sha256sum | cut -c1-32
)"

version="$(node -p "require('./packages/agent/package.json').version")"
tag="openlegion-agent:$version"

existing_hash="$(docker image inspect --format '{{index .Config.Labels "openlegion.inputs-hash"}}' "$tag" 2>/dev/null || true)"
if [ "$existing_hash" = "$inputs_hash" ]; then
  docker tag "$tag" openlegion-agent:latest
  say "$tag is up to date (inputs $inputs_hash); build skipped"
  echo "$tag"
  exit 0
fi

say "building $tag from $base_image (Chromium layer ~30 s when not cached)…"
quietly "docker build" docker-build.log docker build \
  --file "$dockerfile" \
  --build-arg "BASE_IMAGE=$base_image" \
  --label "openlegion.inputs-hash=$inputs_hash" \
  --label "openlegion.version=$version" \
  --tag "$tag" \
  --tag openlegion-agent:latest \
  "$context"
say "built $tag ($(docker image inspect --format '{{.Size}}' "$tag" | awk '{printf "%d MB", $1/1000000}'))"
echo "$tag"
