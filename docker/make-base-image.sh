#!/usr/bin/env bash
# Make a Debian bookworm base image locally (debootstrap + docker import) when none is present
# and none can be pulled. Prints the image tag to use as the agent image's BASE_IMAGE.
set -euo pipefail

BASE_TAG="${OPENLEGION_BASE_IMAGE:-openlegion-base:bookworm}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

if docker image inspect "$BASE_TAG" >/dev/null 2>&1; then
  echo "$BASE_TAG"; exit 0
fi

# A user with a registry gets the ordinary base image.
if [ -z "${OPENLEGION_BASE_IMAGE:-}" ] && timeout 60 docker pull -q debian:bookworm-slim >/dev/null 2>&1; then
  docker tag debian:bookworm-slim "$BASE_TAG"
  echo "$BASE_TAG"; exit 0
fi

if ! command -v debootstrap >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  else
    echo "openlegion: cannot pull a base image and debootstrap is missing; install debootstrap (root) or set OPENLEGION_BASE_IMAGE to a local Debian bookworm image" >&2
    exit 1
  fi
fi

rootfs="$(mktemp -d /tmp/openlegion-rootfs.XXXXXX)"
trap 'rm -rf "$rootfs"' EXIT
echo "openlegion: building base image $BASE_TAG with debootstrap (~30 s)…" >&2
debootstrap --variant=minbase bookworm "$rootfs" "$MIRROR" >/tmp/openlegion-debootstrap.log 2>&1 \
  || { echo "openlegion: debootstrap failed; see /tmp/openlegion-debootstrap.log" >&2; exit 1; }
tar -C "$rootfs" -c . | docker import - "$BASE_TAG" >/dev/null
echo "$BASE_TAG"
