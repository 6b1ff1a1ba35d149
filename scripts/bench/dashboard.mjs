// `pnpm bench dashboard`: the web dashboard against a real mesh (`openlegion start`, process
// runtime, the testkit's fake LLM behind a timestamping loopback relay), in the system Chromium:
//   1. the fleet view's agent list rendered ≤ 1 s from navigation start (Playwright, median of 10);
//   2. a chat token reaching the page ≤ 50 ms after it reaches the host (95th percentile of a warm
//      turn's 20 tokens; the relay stamps each token as it hands it to the host, the page when it
//      shows; one machine, one clock; the first turn of the conversation is reported beside it);
//   3. host CPU time added by 10 open idle dashboards over 60 s ≤ 5% of one core (the host's own
//      process, /proc/<pid>/stat, against 60 s with none open).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'packages/cli/bundle/bin.mjs');
const AGENTS = 8;
const IDLE_S = 60;
const TICK_HZ = 100;
const TOKENS = 20;
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export async function main() {
  if (!existsSync(path.join(ROOT, 'packages/host/dist/ui/index.html')) || !existsSync(CLI)) {
    console.error('dashboard: run pnpm build first (the dashboard and the CLI bundle are built files)');
    return 1;
  }
  const require = createRequire(path.join(ROOT, 'packages/cli/package.json'));
  const { chromium } = require('playwright-core');
  const { startFakeLlm } = await import(path.join(ROOT, 'packages/testkit/dist/index.js'));
  const { findFreePorts } = await import(path.join(ROOT, 'packages/infra/dist/http/index.js'));

  const chunks = Array.from({ length: TOKENS }, (_, index) => ` tok${index}`);
  const llm = await startFakeLlm({ script: { rules: [], default: { chunks, chunk_delay_ms: 120 } } });
  const stamps = new Map();
  const relay = await startRelay(new URL(llm.url), stamps);
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-dashboard-'));
  const [port, egressPort] = await findFreePorts('127.0.0.1', 2);
  const base = `http://127.0.0.1:${port}`;
  const agents = Array.from({ length: AGENTS }, (_, index) => `agent-${index + 1}`);
  writeFileSync(
    path.join(dir, 'mesh.yaml'),
    `mesh: { name: benchdash, port: ${port}, egress_port: ${egressPort}, data_dir: data }
runtime: { kind: process }
llm:
  default_model: up/m
  prices: { up/m: { input: 1, output: 2, max_output_tokens: 1000 } }
  providers: { up: { kind: openai-compatible, base_url: "${relay.url}/v1" } }
agents:
${agents.map((name) => `  ${name}: {}`).join('\n')}
`,
  );
  const host = spawn(process.execPath, [CLI, 'start', '--config', path.join(dir, 'mesh.yaml')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, OPENLEGION_LOG_LEVEL: 'warn' },
  });
  let hostOutput = '';
  host.stdout.on('data', (chunk) => {
    hostOutput += chunk;
  });
  host.stderr.on('data', (chunk) => {
    hostOutput += chunk;
  });
  let browser;
  try {
    const token = await waitForReady(base, dir, agents.length, () => hostOutput);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${base}/ui`);
    await page.getByLabel('Operator token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('tr[data-agent]').first().waitFor();

    // 1. Fleet: navigation start → the agent list in the DOM (a fresh load each time).
    const fleet = [];
    for (let i = 0; i < 10; i += 1) {
      await page.goto('about:blank');
      await page.goto(`${base}/ui#/fleet`);
      const at = await page.waitForFunction(
        (count) => (document.querySelectorAll('tr[data-agent]').length === count ? performance.now() : false),
        agents.length,
        { polling: 'raf' },
      );
      fleet.push(await at.jsonValue());
    }

    // 2. Chat: each token stamped by the relay as it goes to the host, and by the page as it shows.
    // Two turns: the first of a conversation, and the next (warm) one.
    await page.goto(`${base}/ui#/chat/agent-1`);
    await page.getByLabel('Message').waitFor();
    const turn = async (message) => {
      await page.evaluate(() => {
        const seen = {};
        window.__seen = seen;
        window.__observer?.disconnect();
        const transcript = document.querySelector('[data-testid="transcript"]');
        const before = (transcript?.textContent ?? '').length;
        window.__observer = new MutationObserver(() => {
          const now = performance.timeOrigin + performance.now();
          for (const match of (transcript?.textContent ?? '').slice(before).matchAll(/tok(\d+)/g))
            seen[match[1]] ??= now;
        });
        window.__observer.observe(transcript, { subtree: true, childList: true, characterData: true });
      });
      stamps.clear();
      await page.getByLabel('Message').fill(message);
      await page.getByRole('button', { name: 'Send' }).click();
      await page.waitForFunction((count) => Object.keys(window.__seen).length === count, TOKENS, {
        timeout: 60_000,
      });
      await page.getByRole('button', { name: 'Send' }).waitFor();
      const seen = await page.evaluate(() => window.__seen);
      return Object.entries(seen)
        .map(([index, at]) => at - (stamps.get(Number(index)) ?? Number.NaN))
        .filter((value) => Number.isFinite(value));
    };
    const firstTurn = await turn('stream please');
    const tokenLatency = await turn('stream again');

    // 3. CPU: the host's own CPU over 60 s with no dashboard, then with 10 idle ones.
    await page.close();
    const idleCpu = await hostCpuShare(host.pid, IDLE_S);
    // One browser context each, as ten browsers would be: a browser keeps about six connections per
    // host across its tabs, and each dashboard holds one (its event stream).
    const signedIn = await context.storageState();
    const pages = [];
    for (let i = 0; i < 10; i += 1) {
      const open = await (await browser.newContext({ storageState: signedIn })).newPage();
      await open.goto(`${base}/ui#/fleet`);
      await open.locator('tr[data-agent]').first().waitFor();
      pages.push(open);
    }
    const dashboardsCpu = await hostCpuShare(host.pid, IDLE_S);
    const addedCpu = Math.max(0, dashboardsCpu - idleCpu);

    const round = (value) => Math.round(value * 10) / 10;
    const metrics = {
      fleet_render_ms_median: round(median(fleet)),
      fleet_render_ms_max: round(Math.max(...fleet)),
      chat_token_ms_median: round(median(tokenLatency)),
      chat_token_ms_p95: round(percentile(tokenLatency, 0.95)),
      chat_token_ms_max: round(Math.max(...tokenLatency)),
      chat_token_ms_each: tokenLatency.map(round),
      chat_first_turn_token_ms_median: round(median(firstTurn)),
      chat_first_turn_token_ms_max: round(Math.max(...firstTurn)),
      chat_tokens_measured: tokenLatency.length,
      host_cpu_idle_pct_of_core: round(idleCpu * 100),
      host_cpu_10_dashboards_pct_of_core: round(dashboardsCpu * 100),
      host_cpu_added_pct_of_core: round(addedCpu * 100),
      agents: AGENTS,
    };
    // Gated on the typical load (median of 10) and the 95th percentile token: the maxima are
    // reported too, and on a shared 2-core machine they carry its other load.
    const targets = { fleet_render_ms_median: 1000, chat_token_ms_p95: 50, host_cpu_added_pct_of_core: 5 };
    const pass =
      metrics.fleet_render_ms_median <= 1000 &&
      metrics.chat_token_ms_p95 <= 50 &&
      metrics.host_cpu_added_pct_of_core <= 5;
    const file = writeResults('dashboard', metrics, targets, pass);
    console.log(JSON.stringify(metrics, null, 2));
    console.log(`${pass ? 'PASS' : 'FAIL'}; written to ${file}`);
    return pass ? 0 : 1;
  } finally {
    await browser?.close();
    host.kill('SIGTERM');
    await new Promise((resolve) => host.once('exit', resolve));
    await relay.close();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A loopback relay to the fake LLM that stamps when each `tokN` chunk goes on to the host. */
function startRelay(target, stamps) {
  const server = createServer((incoming, outgoing) => {
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('data', (chunk) => {
          outgoing.write(chunk);
          for (const match of chunk.toString('utf8').matchAll(/tok(\d+)/g))
            if (!stamps.has(Number(match[1]))) stamps.set(Number(match[1]), Date.now());
        });
        answer.on('end', () => outgoing.end());
      },
    );
    incoming.pipe(forward);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        close: () => new Promise((done) => server.close(done)),
      }),
    ),
  );
}

async function waitForReady(base, dir, count, output) {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    try {
      const token = readFileSync(path.join(dir, 'data', 'operator-token'), 'utf8').trim();
      const response = await fetch(`${base}/api/status`, { headers: { authorization: `Bearer ${token}` } });
      if (response.ok) {
        const status = await response.json();
        if (status.agents.filter((agent) => agent.state === 'ready').length === count) return token;
      }
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the mesh did not become ready:\n${output()}`);
}

function percentile(values, share) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
}

/** The share of one core the process used over `seconds` (utime + stime from /proc). */
async function hostCpuShare(pid, seconds) {
  const ticks = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  const before = ticks();
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return (ticks() - before) / TICK_HZ / ((performance.now() - started) / 1000);
}
