#!/usr/bin/env bash
# Multi-node check of runtime.kind swarm (issue 24), outside CI; as root. Everything stays on this
# machine: the second node is a second Docker engine in its own network namespace, joined to this
# one by a veth pair (10.250.0.1 here, 10.250.0.2 there).
#
# 1. the second engine: `nsenter --net` (not `ip netns exec`, which remounts /sys and hides the
#    cgroup mounts dockerd needs), its own data root, exec root (and so its own containerd) and socket;
# 2. a swarm whose manager advertises 10.250.0.1 (a worker cannot reach 127.0.0.1); a swarm that is
#    already active is refused, this script inits its own and leaves it after;
# 3. the agent image copied into node 2 (`docker save | docker load`, ~30 s for ~1 GB);
# 4. a mesh of two agents, `far` placed on node 2 (swarm-placement.json): it must run there and
#    answer through the host container, over an overlay that spans the two engines;
# 5. node 2 stopped and removed: `far` must no longer be reported ready (its volume and placement are
#    on node 2, so Swarm keeps its task pending instead of moving it) and `stop` must clean up.
# Needs the agent and host images (scripts/build-agent-image.sh, scripts/build-host-image.sh) and
# `pnpm build`. Passed here in 97 s (40 s of it copying the image into the second engine).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
say() { echo "swarm-multinode: [$(( $(date +%s) - started ))s] $*" >&2; }
fail() { say "FAIL: $*"; exit 1; }

started=$(date +%s)
agent_image="${AGENT_IMAGE:-openlegion-agent:latest}"
ns=ol-swarm-node2
root=/var/lib/ol-swarm-node2
node2="docker -H unix://$root/docker.sock"
work="$(mktemp -d /tmp/ol-swarm-multinode.XXXXXX)"
mesh="multinode-$RANDOM"
cli() { node packages/cli/bundle/bin.mjs "$@" --config "$work/mesh.yaml"; }
agent_state() {
  cli status --json | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const a=JSON.parse(s).agents.find((x)=>x.name===process.argv[1]);console.log(a?a.state:"gone")})' "$1"
}

[ "$(docker info --format '{{.Swarm.LocalNodeState}}')" = inactive ] \
  || fail "a swarm is active on this engine; this check makes its own (docker swarm leave --force first)"

cleanup() {
  set +e
  cli stop >/dev/null 2>&1
  docker volume ls -q --filter "label=openlegion.mesh=$mesh" | xargs -r docker volume rm -f >/dev/null
  [ -f "$root/docker.pid" ] && kill "$(cat "$root/docker.pid")" 2>/dev/null && sleep 3
  docker swarm leave --force >/dev/null 2>&1
  docker network rm docker_gwbridge >/dev/null 2>&1
  ip netns del "$ns" 2>/dev/null
  ip link del ol-n2h 2>/dev/null
  rm -rf "$root" "$work"
}
trap cleanup EXIT

say "second engine in network namespace $ns"
mkdir -p "$root"
ip netns add "$ns"
ip link add ol-n2h type veth peer name ol-n2n
ip link set ol-n2n netns "$ns"
ip addr add 10.250.0.1/24 dev ol-n2h && ip link set ol-n2h up
ip netns exec "$ns" sh -c 'ip addr add 10.250.0.2/24 dev ol-n2n && ip link set ol-n2n up && ip link set lo up'
nsenter --net="/var/run/netns/$ns" nohup dockerd --data-root "$root/data" --exec-root "$root/exec" \
  --pidfile "$root/docker.pid" --host "unix://$root/docker.sock" --bip 172.31.250.1/24 >"$root/dockerd.log" 2>&1 &
for _ in $(seq 1 100); do $node2 info >/dev/null 2>&1 && break; sleep 0.2; done
$node2 info >/dev/null 2>&1 || fail "the second engine did not start; see $root/dockerd.log"

say "swarm: manager on 10.250.0.1, node 2 joins as a worker"
docker swarm init --advertise-addr 10.250.0.1 --listen-addr 10.250.0.1:2377 >/dev/null
$node2 swarm join --advertise-addr 10.250.0.2 --listen-addr 10.250.0.2:2377 \
  --token "$(docker swarm join-token -q worker)" 10.250.0.1:2377 >/dev/null
node2_id="$(docker node ls --filter role=worker -q)"
[ -n "$node2_id" ] || fail "node 2 did not join"

say "copy $agent_image into node 2"
docker save "$agent_image" | $node2 load >/dev/null

port=$((20000 + RANDOM % 20000))
printf 'models: [scripted]\nrules:\n  - match: { last_message: hello }\n    reply: { text: "hi from far away" }\n' >"$work/llm.yaml"
cat >"$work/mesh.yaml" <<EOF
mesh: { name: $mesh, port: $port, egress_port: $((port + 1)), data_dir: data }
runtime: { kind: swarm, image: "$agent_image", resources: { memory: 256m, cpus: 0.5, pids: 128 } }
llm: { default_model: demo/scripted, providers: { demo: { kind: scripted, script: llm.yaml } } }
agents:
  near: { role: stays on the manager }
  far: { role: placed on node 2 }
EOF
mkdir -p "$work/data" && chmod 700 "$work/data"
printf '{ "far": "%s" }\n' "$node2_id" >"$work/data/swarm-placement.json"

say "start with far placed on node 2"
cli start >/dev/null || fail "start"
far_task="$(docker service ps "openlegion-$mesh-far" --filter desired-state=running -q | head -1)"
[ "$(docker inspect "$far_task" --format '{{.NodeID}}')" = "$node2_id" ] || fail "far does not run on node 2"
[ "$(cli send far hello)" = "hi from far away" ] || fail "far did not answer through the host"
[ "$(cli send near hello)" = "hi from far away" ] || fail "near did not answer"
say "far answers from node 2 through the host container"

say "stop node 2 and remove it from the swarm"
kill "$(cat "$root/docker.pid")"
sleep 3
docker node rm --force "$node2_id" >/dev/null
deadline=$(( $(date +%s) + 120 ))
state=ready
while [ "$(date +%s)" -lt "$deadline" ]; do
  state="$(agent_state far)"
  [ "$state" != ready ] && break
  sleep 2
done
[ "$state" != ready ] || fail "far still reported ready 2 minutes after its node was removed"
say "far is reported $state; its task: $(docker service ps "openlegion-$mesh-far" --format '{{.CurrentState}} {{.Error}}' | head -1)"
[ "$(agent_state near)" = ready ] || fail "near is no longer ready"

say "stop"
cli stop >/dev/null || fail "stop"
left="$(docker service ls -q --filter "label=openlegion.mesh=$mesh"; docker secret ls -q --filter "label=openlegion.mesh=$mesh"; docker network ls -q --filter "label=openlegion.mesh=$mesh")"
[ -z "$left" ] || fail "stop left: $left"
say "PASS"
