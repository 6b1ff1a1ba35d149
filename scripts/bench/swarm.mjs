// swarm: runtime.kind swarm on a single-node swarm, against Docker itself in the same run.
// - start: 10 agents to ready with `openlegion start` (the slowest agent's "ready in" line: secret,
//   service, task, agent boot and its ready report) against bare `docker service create` of the
//   same image, 10 services created at once, each on its own internal overlay as openlegion places
//   agents, until every task runs (a node server in the image, no OpenLegion). Target: at most
//   1.5x. The same without overlays is reported too.
// - LLM call: an agent's /v1/chat/completions call through the host, timed from inside the agent's
//   container (the scripted provider answering in the host), over the overlay (swarm) against the
//   bridge network (docker runtime). Target: the overlay adds at most 1 ms p50.
// Inits a swarm when none is active (and leaves it after), builds the host image
// (scripts/build-host-image.sh) when needed, uses the agent image as it is (BENCH_AGENT_IMAGE,
// default openlegion-agent:latest). Needs `pnpm build` first. Sends nothing off this machine.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { writeResults } from './bench-results.mjs';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'packages/cli/bundle/bin.mjs');
const AGENTS = 10;
const LLM_WARMUP = 30;
const LLM_ROUNDS = 300;
const IMAGE = process.env.BENCH_AGENT_IMAGE ?? 'openlegion-agent:latest';
const TARGETS = { start_ratio_to_bare: 1.5, llm_added_p50_ms: 1 };

const docker = async (...args) => (await exec('docker', args, { maxBuffer: 16 * 1024 * 1024 })).stdout;
const lines = async (...args) => (await docker(...args)).split('\n').filter(Boolean);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function main() {
  let createdSwarm = false;
  if ((await docker('info', '--format', '{{.Swarm.LocalNodeState}}')).trim() === 'inactive') {
    await docker('swarm', 'init', '--advertise-addr', '127.0.0.1', '--listen-addr', '127.0.0.1:2377');
    createdSwarm = true;
  }
  try {
    await exec('bash', ['scripts/build-host-image.sh'], { cwd: ROOT });
    const plain = await bareServices(false);
    console.log(`bare docker service create: ${AGENTS} tasks running in ${plain} ms`);
    const bare = await bareServices(true);
    console.log(`bare docker service create, each on its own overlay: ${AGENTS} tasks running in ${bare} ms`);
    const swarm = await meshRun('swarm', AGENTS);
    console.log(
      `openlegion swarm: ${AGENTS} agents ready in ${swarm.readyMs} ms (start command ${swarm.wallMs} ms)`,
    );
    console.log(`  LLM call over the overlay: p50 ${swarm.llm.p50} ms, p99 ${swarm.llm.p99} ms`);
    const bridge = await meshRun('docker', 1);
    console.log(
      `  LLM call over the bridge (docker runtime): p50 ${bridge.llm.p50} ms, p99 ${bridge.llm.p99} ms`,
    );
    const metrics = {
      bare_service_create_10_running_ms: plain,
      bare_service_create_10_on_overlays_running_ms: bare,
      swarm_10_agents_ready_ms: swarm.readyMs,
      swarm_start_command_ms: swarm.wallMs,
      start_ratio_to_bare: round(swarm.readyMs / bare),
      start_ratio_to_bare_without_overlays: round(swarm.readyMs / plain),
      llm_overlay_p50_ms: swarm.llm.p50,
      llm_overlay_p99_ms: swarm.llm.p99,
      llm_bridge_p50_ms: bridge.llm.p50,
      llm_bridge_p99_ms: bridge.llm.p99,
      llm_added_p50_ms: round(swarm.llm.p50 - bridge.llm.p50),
    };
    const pass =
      metrics.start_ratio_to_bare <= TARGETS.start_ratio_to_bare &&
      metrics.llm_added_p50_ms <= TARGETS.llm_added_p50_ms;
    console.log(`results: ${writeResults('swarm', metrics, TARGETS, pass)} (${pass ? 'PASS' : 'FAIL'})`);
    return pass ? 0 : 1;
  } finally {
    if (createdSwarm) {
      await docker('swarm', 'leave', '--force');
      await docker('network', 'rm', 'docker_gwbridge').catch(() => '');
    }
  }
}

/**
 * `docker service create` of AGENTS services at once; ms until every task runs. With `overlays`,
 * each service on its own internal overlay first, as openlegion places its agents.
 */
async function bareServices(overlays) {
  const prefix = `ol-bench-bare-${Math.random().toString(36).slice(2, 7)}`;
  const names = Array.from({ length: AGENTS }, (_, index) => `${prefix}-${index}`);
  const began = performance.now();
  try {
    if (overlays)
      await Promise.all(
        names.map((name) =>
          docker('network', 'create', '-d', 'overlay', '--internal', '--attachable', `${name}-net`),
        ),
      );
    await Promise.all(
      names.map((name) =>
        docker(
          'service',
          'create',
          '--detach',
          '--name',
          name,
          ...(overlays ? ['--network', `${name}-net`] : []),
          '--label',
          `bench=${prefix}`,
          '--user',
          '1000',
          '--read-only',
          '--init',
          '--endpoint-mode',
          'dnsrr',
          IMAGE,
          'node',
          '-e',
          "require('http').createServer((q, s) => s.end('ok')).listen(8400)",
        ),
      ),
    );
    for (;;) {
      const states = await lines('service', 'ps', ...names, '--format', '{{.CurrentState}}');
      if (states.length === AGENTS && states.every((state) => state.startsWith('Running'))) break;
      await sleep(50);
    }
    return Math.round(performance.now() - began);
  } finally {
    await docker('service', 'rm', ...names).catch(() => '');
    if (overlays) {
      await sleep(5_000);
      await docker('network', 'rm', ...names.map((name) => `${name}-net`)).catch(() => '');
    }
  }
}

/** Start a mesh of `agents` on `runtime`, read its agents' ready times, time LLM calls from inside agent a0. */
async function meshRun(runtime, agents) {
  const dir = mkdtempSync(path.join(tmpdir(), `ol-bench-${runtime}-`));
  const mesh = `bench-${runtime}-${Math.random().toString(36).slice(2, 7)}`;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  writeFileSync(
    path.join(dir, 'llm.yaml'),
    'models: [scripted]\nrules:\n  - match: { last_message: hello }\n    reply: { text: "hi" }\n',
  );
  const names = Array.from({ length: agents }, (_, index) => `a${index}`);
  writeFileSync(
    path.join(dir, 'mesh.yaml'),
    `mesh: { name: ${mesh}, port: ${port}, egress_port: ${port + 1}, data_dir: data }
runtime:
  kind: ${runtime}
  image: ${IMAGE}
  resources: { memory: 256m, cpus: 0.5, pids: 128 }
  ready_timeout_ms: 120000
limits: { requests_per_agent_per_s: 100000 }
llm:
  default_model: demo/scripted
  providers:
    demo: { kind: scripted, script: llm.yaml }
agents:
${names.map((name) => `  ${name}: { role: bench agent, soul: Terse. }`).join('\n')}
`,
  );
  const config = path.join(dir, 'mesh.yaml');
  const began = performance.now();
  const started = await cli(['start', '--config', config, ...(runtime === 'docker' ? ['--detach'] : [])]);
  const wallMs = Math.round(performance.now() - began);
  try {
    if (started.code !== 0) throw new Error(`start failed:\n${started.out}`);
    const ready = [...started.out.matchAll(/✓ a\d+ ready in ([\d.]+)s/g)].map(
      (match) => Number(match[1]) * 1000,
    );
    if (ready.length !== agents) throw new Error(`expected ${agents} ready lines:\n${started.out}`);
    const filter =
      runtime === 'swarm'
        ? `label=com.docker.swarm.service.name=openlegion-${mesh}-a0`
        : `name=openlegion-${mesh}-a0`;
    const [container] = await lines('ps', '-q', '--filter', filter);
    const { stdout } = await exec('docker', ['exec', container, 'node', '-e', LLM_CALLS]);
    return { readyMs: Math.round(Math.max(...ready)), wallMs, llm: JSON.parse(stdout) };
  } finally {
    await cli(['stop', '--config', config]);
    const volumes = await lines('volume', 'ls', '-q', '--filter', `label=openlegion.mesh=${mesh}`);
    if (volumes.length) await docker('volume', 'rm', '-f', ...volumes).catch(() => '');
  }
}

/** Run inside an agent's container: sequential LLM calls as the agent, p50/p99 in ms. */
const LLM_CALLS = `
const fs = require('node:fs');
let token = process.env.MESH_TOKEN;
if (!token) token = /MESH_TOKEN='([^']*)'/.exec(fs.readFileSync('/run/secrets/openlegion-env', 'utf8'))[1];
const url = process.env.MESH_URL + '/v1/chat/completions';
const body = JSON.stringify({ model: 'demo/scripted', messages: [{ role: 'user', content: 'hello' }] });
const call = async () => {
  const response = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' }, body });
  if (!response.ok) throw new Error('LLM call: HTTP ' + response.status + ' ' + (await response.text()));
  await response.text();
};
(async () => {
  for (let i = 0; i < ${LLM_WARMUP}; i++) await call();
  const times = [];
  for (let i = 0; i < ${LLM_ROUNDS}; i++) { const t = performance.now(); await call(); times.push(performance.now() - t); }
  times.sort((a, b) => a - b);
  const at = (q) => Math.round(times[Math.floor(q * (times.length - 1))] * 1000) / 1000;
  console.log(JSON.stringify({ p50: at(0.5), p99: at(0.99) }));
})().catch((error) => { console.error(error.message); process.exit(1); });
`;

function cli(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.once('close', (code) => resolve({ code, out }));
  });
}

const round = (value) => Math.round(value * 1000) / 1000;
