// fleet-start: wall time from `openlegion start` (foreground) to all agents ready, for 1, 5 and 10 agents,
// against starting as many bare containers of the same image (a trivial node HTTP server) at once,
// in the same run. Also the idle memory of an agent container, and that Chromium is not running.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'packages/cli/bundle/bin.mjs');
const IMAGE = 'openlegion-agent:latest';
const SIZES = [1, 5, 10];
const TRIALS = 3;
const RESOURCES = { memory: '512m', cpus: 1, pids: 256 };
const TARGET_RATIO_10 = 1.5;
const TARGET_IDLE_MIB = 80;
const exec = promisify(execFile);
// dockerode is the host package's dependency; the bare baseline uses the same client as the runtime.
const Dockerode = createRequire(path.join(ROOT, 'packages/host/package.json'))('dockerode');
const docker = new Dockerode();

export async function main() {
  await exec('bash', [path.join(ROOT, 'scripts/build-agent-image.sh')], { cwd: ROOT });
  const metrics = { start_command: 'openlegion start (foreground), spawn to its ready line' };
  for (const size of SIZES) {
    const bare = [];
    const openlegion = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      bare.push(await bareStart(size));
      openlegion.push(await openlegionStart(size, trial === 0 && size === 10 ? metrics : undefined));
    }
    metrics[`bare_ms_${size}`] = Math.round(median(bare));
    metrics[`openlegion_ms_${size}`] = Math.round(median(openlegion));
    metrics[`ratio_${size}`] = round(median(openlegion) / median(bare));
    console.log(
      `${String(size).padStart(2)} agents: openlegion ${metrics[`openlegion_ms_${size}`]} ms, bare ${metrics[`bare_ms_${size}`]} ms, ratio ${metrics[`ratio_${size}`]} (trials: ${openlegion.map(Math.round).join('/')} vs ${bare.map(Math.round).join('/')})`,
    );
  }
  const pass =
    metrics.ratio_10 <= TARGET_RATIO_10 &&
    metrics.idle_memory_mib_max <= TARGET_IDLE_MIB &&
    !metrics.chromium_running;
  const targets = {
    ratio_10: TARGET_RATIO_10,
    idle_memory_mib_max: TARGET_IDLE_MIB,
    chromium_running: false,
  };
  const file = writeResults('fleet-start', metrics, targets, pass);
  console.log(
    `idle agent memory: avg ${metrics.idle_memory_mib_avg} MiB, max ${metrics.idle_memory_mib_max} MiB; chromium running: ${metrics.chromium_running}`,
  );
  console.log(`${pass ? 'PASS' : 'FAIL'} — wrote ${path.relative(ROOT, file)}`);
  return 0;
}

/** `openlegion start` (foreground) with `size` agents: ms from spawn to its ready line. */
async function openlegionStart(size, memoryMetrics) {
  const dir = mkdtempSync(path.join(tmpdir(), 'ol-bench-'));
  const mesh = `bench-${Math.random().toString(36).slice(2, 7)}`;
  const config = path.join(dir, 'mesh.yaml');
  // An ordinary provider, as in a real deployment (the offline demo's scripted LLM would add a
  // process start of its own). No LLM call is made: start-up ends at ready.
  const agents = Array.from({ length: size }, (_, i) => `  a${i}: { role: bench }`).join('\n');
  writeFileSync(
    config,
    `mesh: { name: ${mesh}, port: ${18_400 + Math.floor(Math.random() * 1000)}, data_dir: data }
runtime: { kind: docker, image: ${IMAGE}, resources: { memory: ${RESOURCES.memory}, cpus: ${RESOURCES.cpus}, pids: ${RESOURCES.pids} } }
llm:
  default_model: upstream/model
  providers: { upstream: { kind: openai-compatible, base_url: "http://127.0.0.1:9/v1" } }
agents:
${agents}
`,
  );
  // `openlegion start` in the foreground, as the README runs it: ms from spawn to its ready line.
  const began = performance.now();
  const host = spawn(process.execPath, [CLI, 'start', '--config', config], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => host.once('exit', resolve));
  await untilOutput(host, new RegExp(`mesh ${mesh} ready`));
  const elapsed = performance.now() - began;
  try {
    if (memoryMetrics) Object.assign(memoryMetrics, await idleMemory(mesh));
  } finally {
    host.kill('SIGINT');
    await exited;
    await removeVolumes(mesh);
  }
  return elapsed;
}

/** Start `size` bare containers of the same image at once: ms until every one answers HTTP. */
export async function bareStart(size) {
  const label = `openlegion-bench-bare-${Math.random().toString(36).slice(2, 7)}`;
  const network = await docker.createNetwork({ Name: label, Internal: true, Labels: { [label]: '1' } });
  const containers = [];
  const began = performance.now();
  try {
    await Promise.all(
      Array.from({ length: size }, async (_, i) => {
        const container = await docker.createContainer({
          name: `${label}-${i}`,
          Image: IMAGE,
          User: '1000',
          Cmd: ['node', '-e', "require('http').createServer((q, r) => r.end('ok')).listen(8400)"],
          Labels: { [label]: '1' },
          HostConfig: {
            NetworkMode: label,
            Init: true,
            ReadonlyRootfs: true,
            CapDrop: ['ALL'],
            Memory: 512 * 1024 * 1024,
            NanoCpus: 1e9,
            PidsLimit: 256,
          },
        });
        containers.push(container);
        await container.start();
        const info = await container.inspect();
        const ip = info.NetworkSettings.Networks[label].IPAddress;
        await waitForHttp(`http://${ip}:8400/`);
      }),
    );
    return performance.now() - began;
  } finally {
    await Promise.all(containers.map((container) => container.remove({ force: true })));
    await network.remove();
  }
}

async function idleMemory(mesh) {
  await new Promise((resolve) => setTimeout(resolve, 3_000)); // let start-up garbage settle
  const { stdout } = await exec('docker', [
    'stats',
    '--no-stream',
    '--format',
    '{{.Name}} {{.MemUsage}}',
    ...(await meshContainers(mesh)),
  ]);
  const mib = stdout
    .trim()
    .split('\n')
    .map((line) => toMib(line.split(' ')[1]));
  let chromium = false;
  for (const name of await meshContainers(mesh)) {
    const { stdout: top } = await exec('docker', ['top', name, '-eo', 'pid,comm']);
    if (/chrom/i.test(top)) chromium = true;
  }
  return {
    idle_memory_mib_avg: round(mib.reduce((a, b) => a + b, 0) / mib.length),
    idle_memory_mib_max: round(Math.max(...mib)),
    chromium_running: chromium,
  };
}

async function meshContainers(mesh) {
  const { stdout } = await exec('docker', [
    'ps',
    '-q',
    '--filter',
    `label=openlegion.mesh=${mesh}`,
    '--format',
    '{{.Names}}',
  ]);
  return stdout.trim().split('\n').filter(Boolean);
}

export async function removeVolumes(mesh) {
  const { stdout } = await exec('docker', [
    'volume',
    'ls',
    '-q',
    '--filter',
    `label=openlegion.mesh=${mesh}`,
  ]);
  const volumes = stdout.trim().split('\n').filter(Boolean);
  if (volumes.length) await exec('docker', ['volume', 'rm', '-f', ...volumes]);
}

function toMib(usage) {
  const match = /^([\d.]+)\s*([KMG]i?B)/.exec(usage);
  if (!match) throw new Error(`cannot read memory usage "${usage}"`);
  const factor = { KiB: 1 / 1024, KB: 1 / 1024, MiB: 1, MB: 1, GiB: 1024, GB: 1024 }[match[2]];
  return Number(match[1]) * factor;
}

async function waitForHttp(url) {
  for (;;) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(500) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Resolve once the process prints a line matching `pattern`; reject if it exits first. */
export function untilOutput(child, pattern) {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk) => {
      output += chunk;
      if (pattern.test(output)) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`openlegion start exited ${code} before ready:\n${output}`)),
    );
  });
}

function round(value) {
  return Math.round(value * 100) / 100;
}
