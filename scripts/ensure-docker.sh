#!/usr/bin/env bash
# Make sure a Docker engine answers. On Debian/Ubuntu as root with none answering, install
# docker.io from the distribution and start dockerd without systemd; otherwise say what to do.
set -euo pipefail

engine_answers() { docker info >/dev/null 2>&1; }

if command -v docker >/dev/null 2>&1 && engine_answers; then
  exit 0
fi

if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  cat >&2 <<'MSG'
openlegion: no Docker engine answers.
  Fix: install Docker (https://docs.docker.com/engine/install/) and start it, or add your user to
  the 'docker' group. Or run agents as local processes (weaker isolation):
    pnpm openlegion start --runtime process
MSG
  exit 1
fi

if ! command -v dockerd >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1; then
  echo "openlegion: installing docker.io and debootstrap from apt…" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq docker.io debootstrap >/dev/null
fi

if ! engine_answers; then
  echo "openlegion: starting dockerd…" >&2
  nohup dockerd >/var/log/dockerd.log 2>&1 &
  for _ in $(seq 1 100); do
    engine_answers && break
    sleep 0.3
  done
fi

engine_answers || { echo "openlegion: dockerd did not come up; see /var/log/dockerd.log" >&2; exit 1; }
