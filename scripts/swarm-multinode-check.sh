#!/usr/bin/env bash
# Multi-node check of runtime.kind swarm (issue 24), outside CI. Everything stays on this machine:
# the second node is a Docker engine in a privileged docker-in-docker container (its own network
# namespace on the default bridge), the registry is Debian's docker-registry package on 127.0.0.1.
#
# 1. a swarm whose manager advertises this machine's docker0 address (the second node must reach
#    it; 127.0.0.1 is the container's own loopback there), inited here when none is active;
# 2. image openlegion-dind:check (the local Debian base + Debian's docker.io; the build fetches
#    from the Debian mirror as the agent image's build does), a container ol-swarm-node2 running
#    dockerd, joined as a worker;
# 3. runtime.registry: a local registry on 127.0.0.1:5000 (docker-registry package), `openlegion
#    start` pushes the agent image to it (the manager pulls 127.0.0.1 registries over HTTP by
#    default); node 2 gets the image with `docker save | docker load` (its 127.0.0.1 is its own);
# 4. a mesh of two agents; agent "far" is placed on node 2 (swarm-placement.json) and must answer
#    through the host container, over an overlay that now spans two engines;
# 5. node 2 is removed: "far" cannot be rescheduled (its volume and placement are on node 2) and
#    must not be reported ready; `openlegion stop` must still clean up.
#
# Needs root, the agent and host images (scripts/build-agent-image.sh, scripts/build-host-image.sh)
# and `pnpm build`. Expected to take 5-10 minutes (the dind image, copying the agent image into
# node 2). Leaves the engine as it found it (the swarm is left only if this script created it).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
say() { echo "swarm-multinode: $*" >&2; }
fail() { say "FAIL: $*"; exit 1; }

agent_image="${AGENT_IMAGE:-openlegion-agent:latest}"
node2=ol-swarm-node2
created_swarm=0
registry_pid=""
work="$(mktemp -d /tmp/ol-swarm-multinode.XXXXXX)"
mesh="multinode-$RANDOM"
cli() { node packages/cli/bundle/bin.mjs "$@" --config "$work/mesh.yaml"; }

cleanup() {
  set +e
  cli stop >/dev/null 2>&1
  docker volume ls -q --filter "label=openlegion.mesh=$mesh" | xargs -r docker volume rm -f >/dev/null
  docker rm -f "$node2" >/dev/null 2>&1
  for node in $(docker node ls --filter role=worker -q 2>/dev/null); do docker node rm --force "$node" >/dev/null 2>&1; done
  [ -n "$registry_pid" ] && kill "$registry_pid" 2>/dev/null
  if [ "$created_swarm" = 1 ]; then
    docker swarm leave --force >/dev/null 2>&1
    docker network rm docker_gwbridge >/dev/null 2>&1
  fi
  rm -rf "$work"
}
trap cleanup EXIT

started=$(date +%s)
gateway="$(docker network inspect bridge --format '{{(index .IPAM.Config 0).Gateway}}')"
state="$(docker info --format '{{.Swarm.LocalNodeState}}')"
if [ "$state" = inactive ]; then
  say "init a swarm advertising $gateway (docker0, local to this machine)"
  docker swarm init --advertise-addr "$gateway" --listen-addr "$gateway:2377" >/dev/null
  created_swarm=1
elif [ "$(docker info --format '{{.Swarm.NodeAddr}}')" = 127.0.0.1 ]; then
  fail "the active swarm advertises 127.0.0.1, which a second node cannot reach; leave it first (docker swarm leave --force)"
fi

say "build openlegion-dind:check (local base + Debian's docker.io)"
base="$(bash docker/make-base-image.sh)"
printf 'ARG BASE\nFROM ${BASE}\nRUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io iptables >/dev/null\n' \
  | DOCKER_BUILDKIT=0 docker build -q --build-arg "BASE=$base" -t openlegion-dind:check - >/dev/null

say "start node 2 ($node2) and join it as a worker"
docker run -d --privileged --name "$node2" --hostname "$node2" openlegion-dind:check \
  dockerd --host unix:///var/run/docker.sock >/dev/null
for _ in $(seq 1 100); do docker exec "$node2" docker info >/dev/null 2>&1 && break; sleep 0.2; done
docker exec "$node2" docker swarm join --token "$(docker swarm join-token -q worker)" "$gateway:2377" >/dev/null
node2_id="$(docker node ls --filter "name=$node2" -q)"
[ -n "$node2_id" ] || fail "node 2 did not join"

say "copy $agent_image into node 2 (docker save | docker load)"
docker save "$agent_image" | docker exec -i "$node2" docker load >/dev/null

say "registry on 127.0.0.1:5000 (Debian docker-registry)"
command -v docker-registry >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-registry >/dev/null
printf 'version: 0.1\nstorage: { filesystem: { rootdirectory: %s/registry } }\nhttp: { addr: 127.0.0.1:5000 }\n' "$work" >"$work/registry.yml"
docker-registry serve "$work/registry.yml" >"$work/registry.log" 2>&1 &
registry_pid=$!

port=$((20000 + RANDOM % 20000))
printf 'models: [scripted]\nrules:\n  - match: { last_message: hello }\n    reply: { text: "hi from far away" }\n' >"$work/llm.yaml"
cat >"$work/mesh.yaml" <<EOF
mesh: { name: $mesh, port: $port, egress_port: $((port + 1)), data_dir: data }
runtime: { kind: swarm, image: $agent_image, registry: "127.0.0.1:5000", resources: { memory: 256m, cpus: 0.5, pids: 128 } }
llm: { default_model: demo/scripted, providers: { demo: { kind: scripted, script: llm.yaml } } }
agents:
  near: { role: stays on the manager }
  far: { role: placed on node 2 }
EOF

say "place far on node 2, start (pushes the agent image to the registry)"
mkdir -p "$work/data" && chmod 700 "$work/data"
printf '{ "far": "%s" }\n' "$node2_id" >"$work/data/swarm-placement.json"
t0=$(date +%s%N)
cli start || fail "start with an agent on node 2"
say "started in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
[ "$(docker service ps "openlegion-$mesh-far" --filter desired-state=running --format '{{.Node}}')" = "$node2" ] \
  || fail "far does not run on node 2"
reply="$(cli send far hello)"
[ "$reply" = "hi from far away" ] || fail "far answered '$reply' through the host"
say "far answers from node 2 through the host container"

say "remove node 2"
docker rm -f "$node2" >/dev/null
docker node rm --force "$node2_id" >/dev/null
deadline=$(( $(date +%s) + 120 ))
while [ "$(date +%s)" -lt "$deadline" ]; do
  far_state="$(cli status --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const a=JSON.parse(s).agents.find(a=>a.name==="far");console.log(a?a.state:"gone")})')"
  [ "$far_state" != ready ] && break
  sleep 2
done
[ "$far_state" != ready ] || fail "far still reported ready 2 minutes after its node was removed"
say "far is reported $far_state; its task stays pending: $(docker service ps "openlegion-$mesh-far" --format '{{.CurrentState}} {{.Error}}' | head -1)"

cli stop >/dev/null || fail "stop"
left="$(docker service ls -q --filter "label=openlegion.mesh=$mesh"; docker secret ls -q --filter "label=openlegion.mesh=$mesh"; docker network ls -q --filter "label=openlegion.mesh=$mesh")"
[ -z "$left" ] || fail "stop left: $left"
say "PASS in $(( $(date +%s) - started )) s"
