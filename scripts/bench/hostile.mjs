// hostile: the operator's `GET /api/status` latency (p50, p99) and the host's resident memory while
// one agent runs the red team's attack mix (test/e2e/fixtures/red-team-attack.mjs, repeated inside
// its own container), against the same host idle, in one run. The host runs in the foreground, so
// its exit code after `openlegion stop` is seen. Only loopback and the agent's container are dialled.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'packages/cli/bundle/bin.mjs');
const ATTACK = path.join(ROOT, 'test/e2e/fixtures/red-team-attack.mjs');
const PHASE_MS = Number(process.env.HOSTILE_PHASE_MS ?? 20_000);
/** One operator status call every this many ms in both phases. */
const PROBE_INTERVAL_MS = 25;
const TARGET_P99_RATIO = 1.5;
const TARGET_RSS_GROWTH_MB = 50;
const exec = promisify(execFile);
/** Extra node flags for the host, e.g. HOST_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to see where its time goes. */
const HOST_NODE_ARGS = (process.env.HOST_NODE_ARGS ?? '').split(' ').filter(Boolean);

export async function main() {
  await exec('bash', [path.join(ROOT, 'scripts/build-agent-image.sh')], { cwd: ROOT });
  const dir = mkdtempSync(path.join(tmpdir(), 'ol-bench-hostile-'));
  const port = 18_000 + Math.floor(Math.random() * 1_000);
  const name = `bench-hostile-${Math.random().toString(36).slice(2, 7)}`;
  writeFileSync(path.join(dir, 'demo.yaml'), 'rules: [{ reply: { text: ok } }]\n');
  writeFileSync(
    path.join(dir, 'mesh.yaml'),
    `mesh: { name: ${name}, port: ${port}, egress_port: ${port + 7}, data_dir: data }
runtime: { kind: docker, image: openlegion-agent:latest, resources: { memory: 512m, cpus: 1, pids: 256 } }
llm:
  default_model: demo/scripted
  providers: { demo: { kind: scripted, script: demo.yaml } }
agents:
  mallory:
    permissions: { egress: ["*"], blackboard: { read: ["*"], write: ["scratch/*"] }, pubsub: { publish: ["*"], subscribe: ["*"] } }
`,
  );
  const config = path.join(dir, 'mesh.yaml');
  const host = spawn(process.execPath, [...HOST_NODE_ARGS, CLI, 'start', '--config', config], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let hostOutput = '';
  host.stdout.on('data', (chunk) => (hostOutput += chunk));
  host.stderr.on('data', (chunk) => (hostOutput += chunk));
  const exited = new Promise((resolve) => host.once('exit', (code) => resolve(code)));
  await waitFor(
    () => hostOutput.includes('ready:'),
    120_000,
    () => hostOutput,
  );
  const token = readFileSync(path.join(dir, 'data', 'operator-token'), 'utf8').trim();
  const container = `openlegion-${name}-mallory`;
  await exec('docker', ['cp', ATTACK, `${container}:/data/workspace/attack.mjs`]);

  console.log(`idle for ${PHASE_MS / 1000} s…`);
  const idle = await probePhase(port, token, host.pid, async () => {});
  console.log(`attacking for ${PHASE_MS / 1000} s…`);
  let rounds = 0;
  let failedRounds = 0;
  const attacked = await probePhase(port, token, host.pid, async (until) => {
    // The loop runs inside the agent's container, as an agent's own commands would: all of its CPU
    // is the agent's (its cgroup limit applies); one `docker exec`, not one per round.
    const seconds = Math.max(1, Math.round((until - Date.now()) / 1000));
    const loop = `end=$(($(date +%s) + ${seconds})); while [ "$(date +%s)" -lt "$end" ]; do node attack.mjs || echo failed; done`;
    const run = await exec('docker', ['exec', '-w', '/data/workspace', container, 'sh', '-c', loop], {
      maxBuffer: 16 << 20,
    }).catch((error) => ({ stdout: '', stderr: String(error) }));
    const lines = run.stdout.split('\n').filter((line) => line.trim() !== '');
    rounds = lines.length;
    failedRounds = lines.filter((line) => !line.includes('"watch_redos"')).length;
  });
  await exec(process.execPath, [CLI, 'stop', '--config', config], { cwd: dir });
  const exitCode = await exited;

  const metrics = {
    method: `operator GET /api/status every ${PROBE_INTERVAL_MS} ms for ${PHASE_MS / 1000} s idle, then as long while mallory runs red-team-attack.mjs in a loop inside its container (cpus: 1 of this machine's cores, the default); p99 of each phase; host RSS sampled from /proc every probe, growth = max under attack - end of idle`,
    idle_p50_ms: round(percentile(idle.latencies, 0.5)),
    idle_p99_ms: round(percentile(idle.latencies, 0.99)),
    attack_p50_ms: round(percentile(attacked.latencies, 0.5)),
    attack_p99_ms: round(percentile(attacked.latencies, 0.99)),
    p99_ratio: round(percentile(attacked.latencies, 0.99) / percentile(idle.latencies, 0.99)),
    status_failures_attack: attacked.failures,
    rss_idle_mb: round(idle.rssEnd),
    rss_attack_max_mb: round(attacked.rssMax),
    rss_growth_mb: round(attacked.rssMax - idle.rssEnd),
    attack_rounds: rounds,
    attack_rounds_without_output: failedRounds,
    host_exit_code: exitCode,
    probes_idle: idle.latencies.length,
    probes_attack: attacked.latencies.length,
  };
  const pass =
    metrics.p99_ratio <= TARGET_P99_RATIO &&
    metrics.rss_growth_mb <= TARGET_RSS_GROWTH_MB &&
    exitCode === 0 &&
    attacked.failures === 0 &&
    rounds > 0 &&
    failedRounds === 0;
  const targets = { p99_ratio: TARGET_P99_RATIO, rss_growth_mb: TARGET_RSS_GROWTH_MB, host_exit_code: 0 };
  const file = writeResults('hostile', metrics, targets, pass);
  console.log(JSON.stringify(metrics, null, 2));
  console.log(`${pass ? 'PASS' : 'FAIL'} — wrote ${path.relative(ROOT, file)}`);
  return 0;
}

/** Probe the operator API at a fixed pace for one phase while `load` runs; latencies and RSS. */
async function probePhase(port, token, pid, load) {
  const until = Date.now() + PHASE_MS;
  const latencies = [];
  let failures = 0;
  let rssMax = 0;
  let rssEnd = 0;
  const loading = load(until);
  while (Date.now() < until) {
    const began = performance.now();
    const answer = await fetch(`http://127.0.0.1:${port}/api/status`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined);
    if (answer?.ok) {
      await answer.arrayBuffer();
      latencies.push(performance.now() - began);
    } else failures += 1;
    rssEnd = rssMb(pid);
    rssMax = Math.max(rssMax, rssEnd);
    const pause = PROBE_INTERVAL_MS - (performance.now() - began);
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
  }
  await loading;
  return { latencies, failures, rssMax, rssEnd };
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return p === 0.5 ? median(sorted) : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

async function waitFor(check, timeoutMs, describe) {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out; host said:\n${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const round = (value) => Math.round(value * 100) / 100;
