// llm-proxy: what the host's LLM proxy adds, measured side by side in one run against the same
// loopback upstream (a minimal OpenAI-compatible server written here, answering at once):
// - direct: the client calls the upstream;
// - reference: through the fastest honest proxy we know how to write: a node:http server that
//   streams the request's bytes to the upstream over a keep-alive undici Pool and the answer's
//   bytes back, parsing neither (undici is also what the host dials providers with, so the gap is
//   the host's own work, not a slower client). An earlier reference (fetch, the body buffered) was
//   slower than the host itself, so the throughput target could not bind;
// - host: through the host's /v1 route as an agent (auth, model resolution and authorisation,
//   failover bookkeeping, budget reservation and usage recording in a WAL mesh.db).
// Reports what the host adds over the reference: p50/p99 latency (non-stream), time to first byte
// (stream), CPU per call, and requests/s at concurrency 64 (the load from a worker thread, three
// rounds interleaved across the paths, median taken); the same over calling the upstream directly
// is reported too. Pass: the host adds at most 1 ms p50 and 5 ms p99 over the reference and keeps
// at least 0.7x its throughput. Needs `pnpm build` first.
// To see where the host's time goes: BENCH_NO_COSTS=1 (no budgets or usage recording),
// BENCH_SYNC=NORMAL (mesh.db commits not synced to disk).
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(ROOT, 'packages', file);
const LATENCY_ROUNDS = 400;
const STREAM_ROUNDS = 200;
const CPU_ROUNDS = 1_000;
const CPU_BLOCKS = 10;
const THROUGHPUT_REQUESTS = 4_000;
/** Throughput rounds per path, interleaved, so a burst of load elsewhere hits every path alike. */
const THROUGHPUT_ROUNDS = 3;
const CONCURRENCY = 64;
const TARGETS = {
  added_over_reference_p50_ms: 1,
  added_over_reference_p99_ms: 5,
  throughput_ratio_to_reference: 0.7,
};
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
  const { Pool } = createRequire(dist('host/package.json'))('undici');
  const pool = new Pool(upstream.url, { connections: CONCURRENCY * 2 });
  const reference = await listen(createServer((req, res) => void passThrough(pool, req, res)));
  const host = await startHost(upstream.url);
  const targets = {
    direct: { url: `${upstream.url}/v1/chat/completions`, headers: { 'content-type': 'application/json' } },
    reference: {
      url: `${reference.url}/v1/chat/completions`,
      headers: { 'content-type': 'application/json' },
    },
    host: {
      url: `${host.url}/v1/chat/completions`,
      headers: { 'content-type': 'application/json', authorization: host.auth },
    },
  };

  const latency = { direct: [], reference: [], host: [] };
  const ttfb = { direct: [], reference: [], host: [] };
  for (let round = 0; round < 50; round++)
    for (const target of Object.values(targets)) await timeOne(target, BODY); // warm up
  for (let round = 0; round < LATENCY_ROUNDS; round++)
    for (const [name, target] of Object.entries(targets)) latency[name].push(await timeOne(target, BODY));
  for (let round = 0; round < STREAM_ROUNDS; round++)
    for (const [name, target] of Object.entries(targets)) ttfb[name].push(await timeFirstByte(target));
  // CPU time per sequential call (this process: client, upstream, reference proxy and host), which a
  // busy machine disturbs less than wall time: what each path adds over calling directly.
  // In blocks interleaved across the paths, so warm-up and bursts elsewhere fall on each alike.
  const cpu = { direct: 0, reference: 0, host: 0 };
  for (let block = 0; block < CPU_BLOCKS; block++) {
    for (const [name, target] of Object.entries(targets)) {
      const started = process.cpuUsage();
      for (let round = 0; round < CPU_ROUNDS / CPU_BLOCKS; round++) await timeOne(target, BODY);
      const used = process.cpuUsage(started);
      cpu[name] += (used.user + used.system) / 1000 / CPU_ROUNDS;
    }
  }
  const rounds = { direct: [], reference: [], host: [] };
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++)
    for (const [name, target] of Object.entries(targets)) rounds[name].push(await load(target));
  const throughput = Object.fromEntries(Object.entries(rounds).map(([name, rps]) => [name, median(rps)]));

  const p = (values, q) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  };
  const round2 = (value) => Math.round(value * 100) / 100;
  const round3 = (value) => Math.round(value * 1000) / 1000;
  const added = (q) => round2(p(latency.host, q) - p(latency.reference, q));
  const metrics = {
    method:
      'one loopback upstream answering at once. reference = node:http server streaming request and answer bytes through a keep-alive undici Pool (no parsing, no auth, nothing recorded); host = /v1 as an agent with auth, model authorisation, failover bookkeeping, budget reservation and usage recording (mesh.db WAL, synchronous FULL, committed on the usage writer thread); direct = the client calls the upstream. Latency and time to first byte: sequential requests interleaved across the three paths; added_over_reference = host minus reference at the same percentile. CPU per call over 1,000 sequential calls per path in 10 interleaved blocks (the whole process; less disturbed by a busy machine than wall time). Throughput: 64 concurrent requests from a worker thread, 3 rounds interleaved across paths, median. pass: added_over_reference p50 <= 1 ms and p99 <= 5 ms, host rps >= 0.7x reference rps',
    load_average_1m: round2((loadAtStart + loadavg()[0]) / 2),
    direct_p50_ms: round2(p(latency.direct, 0.5)),
    reference_p50_ms: round2(p(latency.reference, 0.5)),
    host_p50_ms: round2(p(latency.host, 0.5)),
    added_over_reference_p50_ms: added(0.5),
    added_over_reference_p99_ms: added(0.99),
    added_over_direct_p50_ms: round2(p(latency.host, 0.5) - p(latency.direct, 0.5)),
    added_over_direct_p99_ms: round2(p(latency.host, 0.99) - p(latency.direct, 0.99)),
    reference_added_over_direct_p50_ms: round2(p(latency.reference, 0.5) - p(latency.direct, 0.5)),
    cpu_direct_ms_per_call: round3(cpu.direct),
    cpu_added_reference_ms_per_call: round3(cpu.reference - cpu.direct),
    cpu_added_host_ms_per_call: round3(cpu.host - cpu.direct),
    ttfb_direct_p50_ms: round2(p(ttfb.direct, 0.5)),
    ttfb_reference_p50_ms: round2(p(ttfb.reference, 0.5)),
    ttfb_host_p50_ms: round2(p(ttfb.host, 0.5)),
    rps_direct: Math.round(throughput.direct),
    rps_reference: Math.round(throughput.reference),
    rps_host: Math.round(throughput.host),
    rps_rounds: Object.fromEntries(Object.entries(rounds).map(([name, rps]) => [name, rps.map(Math.round)])),
    throughput_ratio_to_reference: round2(throughput.host / throughput.reference),
  };
  const pass =
    metrics.added_over_reference_p50_ms <= TARGETS.added_over_reference_p50_ms &&
    metrics.added_over_reference_p99_ms <= TARGETS.added_over_reference_p99_ms &&
    metrics.throughput_ratio_to_reference >= TARGETS.throughput_ratio_to_reference;
  const file = writeResults('llm-proxy', metrics, TARGETS, pass);
  console.log(JSON.stringify(metrics, null, 2));
  console.log(`${pass ? 'PASS' : 'FAIL'} — wrote ${path.relative(ROOT, file)}`);
  await host.close();
  reference.server.close();
  await pool.close();
  upstream.server.close();
  // A failed target fails the command too, as `pnpm bench context` does.
  return pass ? 0 : 1;
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

/**
 * The reference: the request's bytes streamed to the upstream over a keep-alive pool and the
 * answer's bytes streamed back, nothing parsed, nothing checked or recorded.
 */
async function passThrough(pool, req, res) {
  try {
    const answer = await pool.request({
      path: req.url,
      method: req.method,
      headers: {
        'content-type': req.headers['content-type'] ?? 'application/json',
        ...(req.headers['content-length'] ? { 'content-length': req.headers['content-length'] } : {}),
      },
      body: req,
    });
    res.writeHead(answer.statusCode, {
      'content-type': answer.headers['content-type'] ?? 'application/json',
    });
    answer.body.pipe(res);
  } catch (error) {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(String(error));
  }
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
        undiciFrom: dist('host/package.json'),
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
