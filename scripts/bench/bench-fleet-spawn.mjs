// subagents fleet-spawn (`pnpm bench subagents fleet-spawn`): how fast a fleet-level spawn (issue 23)
// brings a temporary agent container to ready, against a bare `docker run` of the same image in
// the same run (the fleet-start baseline: a trivial node HTTP server, same hardening, until it
// answers HTTP). The host runs as `openlegion start` (foreground, docker runtime) with one agent and
// one template; each trial is `POST /api/spawn` as the operator, timed until the host's status lists
// the temporary agent as ready (polled every 10 ms). Its task is answered at once by a testkit LLM
// the host reaches on loopback, so the agent is removed before the next trial.
// Target: spawn-to-ready p50 ≤ 2× the bare p50. Uses the existing openlegion-agent image (it does
// not build it) and the CLI bundle (`pnpm build` first).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, writeResults } from './bench-results.mjs';
import { bareStart, removeVolumes, untilOutput } from './fleet-start.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'packages/cli/bundle/bin.mjs');
const IMAGE = 'openlegion-agent:latest';
const TRIALS = 7;
const TARGETS = { spawn_over_bare_p50_at_most: 2 };

export async function fleetSpawn() {
  if (!existsSync(CLI)) {
    console.error('build first: pnpm build');
    return 1;
  }
  const { startFakeLlm } = await import(path.join(ROOT, 'packages/testkit/dist/index.js'));
  const llm = await startFakeLlm({ script: { default: { text: 'done' } } });
  const dir = mkdtempSync(path.join(tmpdir(), 'ol-bench-spawn-'));
  const mesh = `bspawn-${Math.random().toString(36).slice(2, 7)}`;
  const port = 18_400 + Math.floor(Math.random() * 1000);
  const config = path.join(dir, 'mesh.yaml');
  writeFileSync(
    config,
    `mesh: { name: ${mesh}, port: ${port}, data_dir: data }
runtime: { kind: docker, image: ${IMAGE}, resources: { memory: 512m, cpus: 1, pids: 256 } }
llm:
  default_model: upstream/gpt-test
  providers: { upstream: { kind: openai-compatible, base_url: "${llm.url}/v1" } }
agents:
  lead: { role: bench }
templates:
  worker: { role: bench worker, tools: minimal }
`,
  );
  const host = spawn(process.execPath, [CLI, 'start', '--config', config], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => host.once('exit', resolve));
  const spawnMs = [];
  const bareMs = [];
  try {
    await untilOutput(host, new RegExp(`mesh ${mesh} ready`));
    const token = readFileSync(path.join(dir, 'data', 'operator-token'), 'utf8').trim();
    const api = async (method, route, body) => {
      const response = await fetch(`http://127.0.0.1:${port}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
      return response.json();
    };
    const temporary = async () => (await api('GET', '/api/status')).agents.filter((agent) => agent.temporary);
    // One warm-up of each: the first container of a run pays for image layers and caches.
    await bareStart(1);
    await spawnOnce(api, temporary);
    for (let trial = 0; trial < TRIALS; trial++) {
      bareMs.push(await bareStart(1));
      spawnMs.push(await spawnOnce(api, temporary));
    }
  } finally {
    host.kill('SIGINT');
    await exited;
    await removeVolumes(mesh);
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const metrics = {
    trials: TRIALS,
    load_average_1m: Math.round(loadavg()[0] * 100) / 100,
    fleet_spawn_to_ready_p50_ms: Math.round(median(spawnMs)),
    bare_docker_run_p50_ms: Math.round(median(bareMs)),
    fleet_spawn_over_bare_p50: Math.round((median(spawnMs) / median(bareMs)) * 100) / 100,
    fleet_spawn_trials_ms: spawnMs.map(Math.round),
    bare_trials_ms: bareMs.map(Math.round),
    method:
      'openlegion start (docker, 1 agent + 1 template); POST /api/spawn until GET /api/status lists the temporary agent ready (10 ms polls), vs a bare container of the same image (trivial node server, same hardening) created, started and answering HTTP; alternating trials after one warm-up each',
  };
  const pass = metrics.fleet_spawn_over_bare_p50 <= TARGETS.spawn_over_bare_p50_at_most;
  const file = writeResults('subagents-fleet-spawn', metrics, TARGETS, pass);
  console.log(
    `fleet spawn to ready p50 ${metrics.fleet_spawn_to_ready_p50_ms} ms (trials ${metrics.fleet_spawn_trials_ms.join('/')}), ` +
      `bare docker run p50 ${metrics.bare_docker_run_p50_ms} ms (trials ${metrics.bare_trials_ms.join('/')}); ` +
      `ratio ${metrics.fleet_spawn_over_bare_p50} (target ≤ ${TARGETS.spawn_over_bare_p50_at_most}) ${pass ? 'PASS' : 'FAIL'} → ${file}`,
  );
  return pass ? 0 : 1;
}

/** One spawn: ms from the request to the agent listed ready; then wait until it is removed. */
async function spawnOnce(api, temporary) {
  const began = performance.now();
  const { agent } = await api('POST', '/api/spawn', { template: 'worker', task: 'say done' });
  let ready;
  for (;;) {
    const listed = (await temporary()).find((record) => record.name === agent.name);
    if (listed?.state === 'ready') {
      ready = performance.now() - began;
      break;
    }
    if (performance.now() - began > 120_000) throw new Error(`${agent.name} never became ready`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // Done at once (the LLM answers "done"): wait for the removal so trials do not overlap.
  for (let i = 0; (await temporary()).length > 0; i++) {
    if (i > 6_000) throw new Error(`${agent.name} was never removed`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return ready;
}
