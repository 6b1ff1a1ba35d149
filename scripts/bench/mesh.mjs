// mesh: the host's coordination paths over real HTTP on loopback and a real mesh.db (WAL, synchronous
// FULL: a write is acknowledged only once it is on disk).
// - durable blackboard writes/s through the store (64 writers at once, group-committed) side by
//   side with the naive durable baseline: the same number of single-row SQLite transactions, one
//   after another, synchronous FULL like mesh.db, on the same disk, in process, no HTTP. Each of
//   those commits waits for its own disk sync, so the baseline is what one sync per write allows;
//   the store must beat it (that is what group commit is for);
// - the same writes and reads through PUT/GET /mesh/blackboard, 64 HTTP clients at once;
// - pub/sub fan-out: 1 publisher, 50 agents each reading its own SSE stream; publish → receive
//   latency p50/p99 over every delivery;
// - lane dispatch overhead: items through one agent's lane whose agent answers at once; the time
//   per item is the lanes' own (persist, dispatch, settle, deliver), on a synchronous FULL database
//   as in mesh.db.
// Needs `pnpm build` first.

import { setMaxListeners } from 'node:events';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(ROOT, 'packages', file);
const WRITES = 6_000;
const READS = 10_000;
const CONCURRENCY = 64;
const SUBSCRIBERS = 50;
const EVENTS = 200;
const LANE_ITEMS = 2_000;
const TARGETS = {
  durable_writes_per_s: 5_000,
  // Group commit exists to beat one disk sync per write: 64 writers at once through the store
  // should get at least what a single writer committing each row durably gets on the same disk.
  durable_writes_ratio_to_bare_sqlite: 1,
  fanout_p99_ms: 20,
  lane_dispatch_ms_per_item: 2,
};

export async function main() {
  if (!existsSync(dist('host/dist/index.js'))) {
    console.error('build first: pnpm build');
    return 1;
  }
  const host = await import(dist('host/dist/index.js'));
  const { meshConfigSchema, formatSseEvent } = await import(dist('protocol/dist/index.js'));
  const { migrate, openDatabase } = await import(dist('infra/dist/sqlite/index.js'));
  const { systemClock } = await import(dist('infra/dist/clock/index.js'));
  const { createLogger } = await import(dist('infra/dist/log/index.js'));
  const { readSseFrames } = await import(dist('infra/dist/sse/index.js'));
  const dir = mkdtempSync(path.join(tmpdir(), 'ol-bench-mesh-'));
  const logger = createLogger({ level: 'silent' });

  const agents = Object.fromEntries([
    [
      'writer',
      { permissions: { blackboard: { read: ['*'], write: ['*'] }, pubsub: { publish: ['bench.*'] } } },
    ],
    ...Array.from({ length: SUBSCRIBERS }, (_, i) => [
      `s${i}`,
      { permissions: { pubsub: { subscribe: ['bench.*'] } } },
    ]),
  ]);
  // One writer agent drives the whole load: it is measured at the host's pace, not held to an
  // agent's fair share of writes (limits.write_bytes_per_agent_per_s).
  const config = meshConfigSchema.parse({
    llm: { providers: { openai: {} } },
    agents,
    limits: { write_bytes_per_agent_per_s: 1 << 30 },
  });
  const tokens = new host.TokenRegistry();
  for (const agent of Object.keys(agents)) tokens.mint(agent);
  const db = openFull(openDatabase, path.join(dir, 'mesh.db'));
  const controller = new AbortController();
  setMaxListeners(0, controller.signal); // as the host does: each open stream listens for its stop
  const context = {
    config,
    dataDir: dir,
    resolvePath: (relative) => path.resolve(dir, relative),
    db,
    clock: systemClock,
    logger,
    secrets: { get: () => undefined },
    signal: controller.signal,
    warn: () => {},
    events: new host.EventBus(logger),
    tokens,
    notices: new host.OperatorNotices(logger),
  };
  const features = [
    host.blackboardFeature(),
    host.pubsubFeature({ lanes: { enqueue: async () => ({}), countPendingEventsWith: () => {} } }),
  ];
  migrate(
    db,
    features.map((feature) => ({ feature: feature.name, steps: feature.migrations })),
  );
  const services = new Map();
  const built = host.buildFeatures(features, context, services);
  const app = await host.buildHostApp({
    logger,
    auth: { tokens, operatorToken: 'bench-operator' },
    features: built,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${app.server.address().port}`;
  const as = (agent) => ({ authorization: `Bearer ${tokens.tokenFor(agent)}` });

  // Durable writes and reads through HTTP.
  const load = (method, count) =>
    new Promise((resolve, reject) => {
      const worker = new Worker(new URL('./bench-mesh-load.mjs', import.meta.url), {
        workerData: {
          url: `${url}/mesh/blackboard/entries/bench`,
          headers: as('writer'),
          count,
          concurrency: CONCURRENCY,
          method,
          body: method === 'PUT' ? 'a small JSON value' : undefined,
        },
      });
      worker.once('message', ({ ms, failures }) =>
        failures ? reject(new Error(`${failures} ${method} requests failed`)) : resolve(ms),
      );
      worker.once('error', reject);
    });
  const writeMs = await load('PUT', WRITES);
  const readMs = await load('GET', READS);
  const bareWritesPerS = bareSqliteWrites(openDatabase, path.join(dir, 'bare.db'), WRITES);
  // The store itself, as the routes call it: 64 writers at once, group-committed, durable.
  const store = services.get(host.BLACKBOARD.name);
  let nextWrite = 0;
  const storeStarted = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (nextWrite < WRITES) {
        const i = nextWrite++;
        await store.put(`store/${i % 1000}`, { i, note: 'a small JSON value' }, 'writer');
      }
    }),
  );
  const storeWritesPerS = WRITES / ((performance.now() - storeStarted) / 1000);

  // Fan-out: 50 subscribers on SSE, one publisher.
  const latencies = [];
  const streams = [];
  let received = 0;
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const agent = `s${i}`;
    const created = await fetch(`${url}/mesh/pubsub/subscriptions`, {
      method: 'POST',
      headers: { ...as(agent), 'content-type': 'application/json' },
      body: JSON.stringify({ pattern: 'bench.*' }),
    });
    const { subscription } = await created.json();
    const abort = new AbortController();
    const response = await fetch(`${url}/mesh/pubsub/stream?subscription=${subscription.id}`, {
      headers: as(agent),
      signal: abort.signal,
    });
    streams.push(abort);
    void (async () => {
      try {
        for await (const frame of readSseFrames(response.body)) {
          const event = JSON.parse(frame.data);
          latencies.push(performance.now() - event.payload.sent);
          received += 1;
        }
      } catch {}
    })();
  }
  for (let n = 0; n < EVENTS; n++) {
    await fetch(`${url}/mesh/pubsub/publish`, {
      method: 'POST',
      headers: { ...as('writer'), 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'bench.tick', payload: { n, sent: performance.now() } }),
    }).then((response) => response.arrayBuffer());
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const until = Date.now() + 10_000;
  while (received < EVENTS * SUBSCRIBERS && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 20));
  for (const abort of streams) abort.abort();
  controller.abort();
  await app.close();
  db.close();

  const lane = (synchronous) =>
    laneOverhead(
      host,
      meshConfigSchema,
      formatSseEvent,
      openDatabase,
      migrate,
      systemClock,
      logger,
      dir,
      synchronous,
    );
  const laneMs = await lane('FULL');
  const laneUnsyncedMs = await lane('NORMAL');

  latencies.sort((a, b) => a - b);
  const pct = (p) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? Number.NaN;
  const metrics = {
    method:
      'every database WAL + synchronous FULL, as mesh.db runs (a write is acknowledged once on disk; verified with PRAGMA synchronous). durable_writes: the blackboard store as its routes call it, 64 writers at once, group-committed (one sync per batch); bare_sqlite: one single-row FULL transaction per write, one writer, no batching, no HTTP, same disk (one sync per write); ratio = store / bare. http_*: PUT/GET /mesh/blackboard over loopback, 64 fetch clients in a worker thread (HTTP-bound on this machine). fan-out over SSE, all in one process. lane dispatch: lanes on a FULL database, an agent that answers at once (and again on synchronous NORMAL, to tell the time spent syncing from the lanes own work). pass: store >= 5000/s and >= bare, fan-out p99 and every event delivered, lane ms/item',
    concurrency: CONCURRENCY,
    durable_writes_per_s: Math.round(storeWritesPerS),
    bare_sqlite_durable_writes_per_s: Math.round(bareWritesPerS),
    durable_writes_ratio_to_bare_sqlite: round(storeWritesPerS / bareWritesPerS),
    http_durable_writes_per_s: Math.round(WRITES / (writeMs / 1000)),
    http_reads_per_s: Math.round(READS / (readMs / 1000)),
    fanout_subscribers: SUBSCRIBERS,
    fanout_events: EVENTS,
    fanout_delivered: received,
    fanout_p50_ms: round(pct(50)),
    fanout_p99_ms: round(pct(99)),
    lane_dispatch_ms_per_item: round(laneMs),
    // The same lanes on a database that does not sync: their own work without the disk, so a fail
    // of the FULL figure can be told apart (a busy or slow disk, or the lanes' code).
    lane_dispatch_unsynced_ms_per_item: round(laneUnsyncedMs),
  };
  const pass =
    metrics.durable_writes_per_s >= TARGETS.durable_writes_per_s &&
    metrics.durable_writes_ratio_to_bare_sqlite >= TARGETS.durable_writes_ratio_to_bare_sqlite &&
    metrics.fanout_p99_ms <= TARGETS.fanout_p99_ms &&
    metrics.fanout_delivered === EVENTS * SUBSCRIBERS &&
    metrics.lane_dispatch_ms_per_item <= TARGETS.lane_dispatch_ms_per_item;
  const file = writeResults('mesh', metrics, TARGETS, pass);
  console.log(JSON.stringify(metrics, null, 2));
  console.log(`${pass ? 'PASS' : 'FAIL'} — wrote ${path.relative(ROOT, file)}`);
  // A failed target fails the command too, as `pnpm bench context` does.
  return pass ? 0 : 1;
}

/** A database as mesh.db runs: every commit waits for the disk (checked, not assumed). */
function openFull(openDatabase, file) {
  const db = openDatabase(file, { synchronous: 'FULL' });
  // SQLite reports FULL as 2; a comparison against a database that does not sync would be a lie.
  if (db.pragma('synchronous', { simple: true }) !== 2) throw new Error(`${file} is not synchronous FULL`);
  return db;
}

/** One sync per write: single-row FULL transactions one after another, in process, no HTTP. */
function bareSqliteWrites(openDatabase, file, count) {
  const db = openFull(openDatabase, file);
  db.exec(
    'CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, version INTEGER NOT NULL) WITHOUT ROWID',
  );
  const put = db.prepare(
    'INSERT INTO kv (key, value, version) VALUES (?, ?, 1) ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = version + 1',
  );
  const write = db.transaction((key, value) => put.run(key, value));
  const started = performance.now();
  for (let i = 0; i < count; i++)
    write(`bench/${i % 1000}`, JSON.stringify({ i, note: 'a small JSON value' }));
  const ms = performance.now() - started;
  db.close();
  return count / (ms / 1000);
}

/** ms per item through one agent's lane whose agent answers at once (a fake agent client). */
async function laneOverhead(
  host,
  meshConfigSchema,
  formatSseEvent,
  openDatabase,
  migrate,
  clock,
  logger,
  dir,
  synchronous,
) {
  const agent = { name: 'a', state: 'ready', url: 'http://agent.bench', runtime: 'process', model: 'm' };
  const registry = { get: () => agent, list: () => [agent], onTransition: () => () => {} };
  const agentClient = {
    relayChat: async (_url, _token, body) =>
      new Response(formatSseEvent({ type: 'done', conversation_id: body.conversation_id, text: 'ok' }), {
        headers: { 'content-type': 'text/event-stream' },
      }),
  };
  // The registry the lanes need, with the one agent ready.
  const agents = {
    name: 'bench-agents',
    provides: [host.AGENT_REGISTRY],
    build(context) {
      context.provide(host.AGENT_REGISTRY, registry);
      return {};
    },
  };
  const lanesFeature = host.lanesFeature({ agentClient });
  const db =
    synchronous === 'FULL'
      ? openFull(openDatabase, path.join(dir, 'lanes.db'))
      : openDatabase(path.join(dir, 'lanes-unsynced.db'), { synchronous });
  migrate(db, [{ feature: lanesFeature.name, steps: lanesFeature.migrations }]);
  const controller = new AbortController();
  const context = {
    config: meshConfigSchema.parse({
      llm: { providers: { openai: {} } },
      agents: { a: {} },
      lanes: { queue_cap: 100_000 },
    }),
    dataDir: dir,
    resolvePath: (relative) => path.resolve(dir, relative),
    db,
    clock,
    logger,
    secrets: { get: () => undefined },
    signal: controller.signal,
    warn: () => {},
    events: new host.EventBus(logger),
    tokens: { tokenFor: () => 't' },
    notices: new host.OperatorNotices(logger),
  };
  const services = new Map();
  const [, built] = host.buildFeatures([agents, lanesFeature], context, services);
  const lanes = services.get(host.LANES.name);
  const settled = new Set();
  context.events.on(host.LANE_ITEM_CHANGED, ({ item, phase }) => {
    if (phase === 'settled' && item.state === 'done') settled.add(item.id);
  });
  await built.start();
  const trials = [];
  for (let trial = 0; trial < 3; trial++) {
    const started = performance.now();
    const items = [];
    for (let i = 0; i < LANE_ITEMS; i++)
      items.push(
        (await lanes.enqueue({ agent: 'a', message: `m${i}`, source: 'cli', conversationId: `c${trial}` }))
          .item,
      );
    const last = items.at(-1);
    while (!settled.has(last.id)) await new Promise((resolve) => setImmediate(resolve));
    trials.push((performance.now() - started) / LANE_ITEMS);
  }
  controller.abort();
  await built.stop();
  db.close();
  return median(trials);
}

const round = (value) => Math.round(value * 100) / 100;
