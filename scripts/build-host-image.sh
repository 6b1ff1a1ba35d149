#!/usr/bin/env bash
# Build the host image openlegion-host:<version> (and :latest) from docker/host.Dockerfile, for
# runtime.kind swarm, where the host runs in a container on the agents' overlays. Skips the build
# when an image of that tag already carries the same inputs hash. Progress goes to stderr; the
# final tag to stdout.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

build_dir="docker/.build"
context="$build_dir/host-context"
dockerfile="docker/host.Dockerfile"
started_at="$(date +%s%N)"
export DOCKER_BUILDKIT=0

elapsed() { echo "$(( ($(date +%s%N) - started_at) / 1000000 )) ms"; }
say() { echo "openlegion: [$(elapsed)] $*" >&2; }

quietly() {
  local what="$1" log="$build_dir/$2"; shift 2
  if ! "$@" >"$log" 2>&1; then
    say "$what failed; last lines of $log:"
    tail -n 40 "$log" >&2
    exit 1
  fi
}

mkdir -p "$build_dir"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$build_dir/host-build.lock"
  flock 9
fi

bash scripts/ensure-docker.sh
base_image="$(bash docker/make-base-image.sh)"

say "compiling and bundling the CLI…"
quietly "tsc -b" host-tsc.log pnpm -s tsc -b
quietly "CLI bundle" host-bundle.log pnpm -s --filter @openlegion/cli run bundle
quietly "agent bundle" host-agent-bundle.log pnpm -s --filter @openlegion/agent run bundle

say "deploying @openlegion/cli into $context/app…"
rm -rf "$context"
mkdir -p "$context"
quietly "pnpm deploy" host-deploy.log pnpm --filter @openlegion/cli deploy --prod --legacy "$context/app"
for addon in "$context"/app/node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3/build; do
  rm -rf "$addon/Release/obj" "$addon/Release/obj.target" "$addon/Release/.deps" \
    "$addon/Release/sqlite3.a" "$addon/Release/test_extension.node" "$addon/deps"
done
find "$context/app" -name '*.tsbuildinfo' -delete
rm -f "$context/app/node_modules/.modules.yaml"
cp "$(command -v node)" "$context/node"

inputs_hash="$(
  {
    echo "dockerfile $(sha256sum <"$dockerfile")"
    echo "base $(docker image inspect --format '{{.Id}}' "$base_image")"
    echo "node $(node --version)"
    (cd "$context" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    (cd "$context" && find . -type l -printf '%p -> %l\n' | LC_ALL=C sort)
  } | sha256sum | cut -c1-32
)"

version="$(node -p "require('./packages/host/package.json').version")"
tag="openlegion-host:$version"

existing_hash="$(docker image inspect --format '{{index .Config.Labels "openlegion.inputs-hash"}}' "$tag" 2>/dev/null || true)"
if [ "$existing_hash" = "$inputs_hash" ]; then
  docker tag "$tag" openlegion-host:latest
  say "$tag is up to date (inputs $inputs_hash); build skipped"
  echo "$tag"
  exit 0
fi

say "building $tag from $base_image…"
quietly "docker build" host-docker-build.log docker build \
  --file "$dockerfile" \
  --build-arg "BASE_IMAGE=$base_image" \
  --label "openlegion.inputs-hash=$inputs_hash" \
  --label "openlegion.version=$version" \
  --tag "$tag" \
  --tag openlegion-host:latest \
  "$context"
say "built $tag ($(docker image inspect --format '{{.Size}}' "$tag" | awk '{printf "%d MB", $1/1000000}'))"
echo "$tag"
