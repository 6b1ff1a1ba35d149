// llm-proxy: what the host's LLM proxy adds, measured side by side in one run against the same
// loopback upstream (a minimal OpenAI-compatible server written here, answering at once):
// - direct: the client calls the upstream;
// - bare: through a pass-through proxy written here (node:http + fetch, streaming the body back):
//   the physical-limit reference;
// - host: through the host's /v1 route as an agent (auth, model resolution and authorisation,
//   failover bookkeeping, budget reservation and usage recording in a WAL mesh.db).
// Reports p50/p99 added latency (non-stream), time to first byte (stream) and requests/s at
// concurrency 64 (the load from a worker thread). Needs `pnpm build` first.
// To see where the host's time goes: BENCH_NO_COSTS=1 (no budgets or usage recording),
// BENCH_SYNC=NORMAL (mesh.db commits not synced to disk).
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(ROOT, 'packages', file);
const LATENCY_ROUNDS = 400;
const STREAM_ROUNDS = 200;
const CPU_ROUNDS = 1_000;
const THROUGHPUT_REQUESTS = 4_000;
const CONCURRENCY = 64;
const TARGETS = { added_p50_ms: 1, added_p99_ms: 5, throughput_ratio_to_bare: 0.7 };
const BODY = JSON.stringify({ model: 'up/model', messages: [{ role: 'user', content: 'hello there' }] });
const STREAM_BODY = JSON.stringify({
  model: 'up/model',
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: 'user', content: 'hello there' }],
});

export async function main() {
  if (!existsSync(dist('host/dist/index.js'))) {
    console.error('build first: pnpm build');
    return 1;
  }
  // The machine may be shared: its load says how much to trust sub-millisecond differences.
  const loadAtStart = loadavg()[0];
  const upstream = await listen(createServer(answerAsUpstream));
  const bare = await listen(createServer((req, res) => void passThrough(upstream.url, req, res)));
  const host = await startHost(upstream.url);
  const targets = {
    direct: { url: `${upstream.url}/v1/chat/completions`, headers: { 'content-type': 'application/json' } },
    bare: { url: `${bare.url}/v1/chat/completions`, headers: { 'content-type': 'application/json' } },
    host: {
      url: `${host.url}/v1/chat/completions`,
      headers: { 'content-type': 'application/json', authorization: host.auth },
    },
  };

  const latency = { direct: [], bare: [], host: [] };
  const ttfb = { direct: [], bare: [], host: [] };
  for (let round = 0; round < 50; round++)
    for (const target of Object.values(targets)) await timeOne(target, BODY); // warm up
  for (let round = 0; round < LATENCY_ROUNDS; round++)
    for (const [name, target] of Object.entries(targets)) latency[name].push(await timeOne(target, BODY));
  for (let round = 0; round < STREAM_ROUNDS; round++)
    for (const [name, target] of Object.entries(targets)) ttfb[name].push(await timeFirstByte(target));
  // CPU time per sequential call (this process: client, upstream, bare proxy and host), which a
  // busy machine disturbs less than wall time: what each path adds over calling directly.
  const cpu = {};
  for (const [name, target] of Object.entries(targets)) {
    const started = process.cpuUsage();
    for (let round = 0; round < CPU_ROUNDS; round++) await timeOne(target, BODY);
    const used = process.cpuUsage(started);
    cpu[name] = (used.user + used.system) / 1000 / CPU_ROUNDS;
  }
  const throughput = {};
  for (const [name, target] of Object.entries(targets)) throughput[name] = await load(target);

  const p = (values, q) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  };
  const round2 = (value) => Math.round(value * 100) / 100;
  const metrics = {
    method:
      'same loopback upstream answering at once; sequential requests interleaved across the three paths for latency and time to first byte; CPU time per call over 1,000 sequential calls per path (the whole process; less disturbed by a busy machine than wall time); 64 concurrent requests from a worker thread for throughput; host = /v1 with auth, model authorisation, failover bookkeeping, budget reservation and usage recording (mesh.db WAL, synchronous FULL, committed on the usage writer thread)',
    load_average_1m: round2((loadAtStart + loadavg()[0]) / 2),
    direct_p50_ms: round2(p(latency.direct, 0.5)),
    bare_p50_ms: round2(p(latency.bare, 0.5)),
    host_p50_ms: round2(p(latency.host, 0.5)),
    added_p50_ms: round2(p(latency.host, 0.5) - p(latency.direct, 0.5)),
    added_p99_ms: round2(p(latency.host, 0.99) - p(latency.direct, 0.99)),
    bare_added_p50_ms: round2(p(latency.bare, 0.5) - p(latency.direct, 0.5)),
    cpu_direct_ms_per_call: Math.round(cpu.direct * 1000) / 1000,
    cpu_added_bare_ms_per_call: Math.round((cpu.bare - cpu.direct) * 1000) / 1000,
    cpu_added_host_ms_per_call: Math.round((cpu.host - cpu.direct) * 1000) / 1000,
    ttfb_direct_p50_ms: round2(p(ttfb.direct, 0.5)),
    ttfb_bare_p50_ms: round2(p(ttfb.bare, 0.5)),
    ttfb_host_p50_ms: round2(p(ttfb.host, 0.5)),
    rps_direct: Math.round(throughput.direct),
    rps_bare: Math.round(throughput.bare),
    rps_host: Math.round(throughput.host),
    throughput_ratio_to_bare: round2(throughput.host / throughput.bare),
  };
  const pass =
    metrics.added_p50_ms <= TARGETS.added_p50_ms &&
    metrics.added_p99_ms <= TARGETS.added_p99_ms &&
    metrics.throughput_ratio_to_bare >= TARGETS.throughput_ratio_to_bare;
  const file = writeResults('llm-proxy', metrics, TARGETS, pass);
  console.log(JSON.stringify(metrics, null, 2));
  console.log(`${pass ? 'PASS' : 'FAIL'} — wrote ${path.relative(ROOT, file)}`);
  await host.close();
  upstream.server.close();
  bare.server.close();
  return 0;
}

/** A minimal OpenAI-compatible completion, streamed or not, with usage. */
function answerAsUpstream(req, res) {
  let text = '';
  req.on('data', (chunk) => {
    text += chunk;
  });
  req.on('end', () => {
    const body = JSON.parse(text || '{}');
    const usage = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const word of ['Hello', ' from', ' upstream'])
        res.write(
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'model', choices: [{ index: 0, delta: { content: word }, finish_reason: null }] })}\n\n`,
        );
      res.write(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'model', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
      );
      res.write(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'model', choices: [], usage })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'c',
        object: 'chat.completion',
        model: 'model',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'Hello from upstream' }, finish_reason: 'stop' },
        ],
        usage,
      }),
    );
  });
}

/** The reference: read the request, forward it with fetch, stream the answer back. */
async function passThrough(upstreamUrl, req, res) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const answer = await fetch(`${upstreamUrl}${req.url}`, {
    method: req.method,
    headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
    body: Buffer.concat(chunks),
  });
  res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
  for await (const chunk of answer.body) res.write(chunk);
  res.end();
}

async function startHost(upstreamUrl) {
  const host = await import(dist('host/dist/index.js'));
  const { meshConfigSchema } = await import(dist('protocol/dist/index.js'));
  const { migrate, openDatabase } = await import(dist('infra/dist/sqlite/index.js'));
  const { systemClock } = await import(dist('infra/dist/clock/index.js'));
  const { createLogger } = await import(dist('infra/dist/log/index.js'));
  const dir = mkdtempSync(path.join(tmpdir(), 'ol-bench-llm-'));
  const config = meshConfigSchema.parse({
    llm: {
      default_model: 'up/model',
      prices: { 'up/model': { input: 1, output: 2 } },
      providers: { up: { kind: 'openai-compatible', base_url: `${upstreamUrl}/v1` } },
    },
    agents: { a: { budget: { daily_usd: 1_000 } } },
    // The load is one agent's CONCURRENCY calls at once, past the default cap per agent.
    limits: { llm_calls_per_agent: CONCURRENCY },
  });
  const db = openDatabase(path.join(dir, 'mesh.db'), { synchronous: process.env.BENCH_SYNC ?? 'FULL' });
  const controller = new AbortController();
  const logger = createLogger({ level: 'silent' });
  const context = {
    config,
    dataDir: dir,
    resolvePath: (relative) => path.resolve(dir, relative),
    db,
    clock: systemClock,
    logger,
    secrets: { lookup: () => undefined, howToSet: () => '' },
    signal: controller.signal,
    warn: () => {},
  };
  const costs = host.costsFeature();
  const features = process.env.BENCH_NO_COSTS
    ? [host.llmFeature()]
    : [costs, host.llmFeature({ costs: costs.meter })];
  migrate(
    db,
    features.filter((f) => f.migrations).map((f) => ({ feature: f.name, steps: f.migrations })),
  );
  for (const feature of features) feature.init?.(context);
  const tokens = new host.TokenRegistry();
  const token = tokens.mint('a');
  const app = await host.buildHostApp({
    logger,
    auth: { tokens, operatorToken: 'bench-op' },
    features,
    context,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url: `http://127.0.0.1:${app.server.address().port}`,
    auth: `Bearer ${token}`,
    async close() {
      controller.abort();
      await app.close();
      for (const feature of [...features].reverse()) await feature.stop?.();
      db.close();
    },
  };
}

async function timeOne(target, body) {
  const started = performance.now();
  const response = await fetch(target.url, { method: 'POST', headers: target.headers, body });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${target.url} answered ${response.status}`);
  return performance.now() - started;
}

async function timeFirstByte(target) {
  const started = performance.now();
  const response = await fetch(target.url, { method: 'POST', headers: target.headers, body: STREAM_BODY });
  const reader = response.body.getReader();
  await reader.read();
  const ms = performance.now() - started;
  while (!(await reader.read()).done) {}
  return ms;
}

function load(target) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./bench-llm-load.mjs', import.meta.url), {
      workerData: {
        url: target.url,
        headers: target.headers,
        count: THROUGHPUT_REQUESTS,
        concurrency: CONCURRENCY,
        body: BODY,
      },
    });
    worker.once('message', ({ ms, failures }) =>
      failures
        ? reject(new Error(`${failures} requests failed`))
        : resolve(THROUGHPUT_REQUESTS / (ms / 1000)),
    );
    worker.once('error', reject);
  });
}

function listen(server) {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${server.address().port}` }),
    ),
  );
}
