// workflow: the engine's own time per step of a 100-step DAG (10 layers of 10 steps, each waiting
// for two steps of the layer before), and how long a run takes to resume after a restart.
// The lanes are a double that completes every item at once, so agent time is zero and only the
// engine is measured: scheduling, templating, and the mesh.db write before each transition (a real
// file in WAL mode). Needs `pnpm build` first.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(ROOT, 'packages', file);
const LAYERS = 10;
const WIDTH = 10;
const STEPS = LAYERS * WIDTH;
const TRIALS = 7;
const TARGET_MS_PER_STEP = 5;
const TARGET_RESUME_MS = 1_000;

export async function main() {
  if (!existsSync(dist('host/dist/index.js'))) {
    console.error('build first: pnpm build');
    return 1;
  }
  const host = await import(dist('host/dist/index.js'));
  const { meshConfigSchema } = await import(dist('protocol/dist/index.js'));
  const { migrate, openDatabase } = await import(dist('infra/dist/sqlite/index.js'));
  const { systemClock } = await import(dist('infra/dist/clock/index.js'));
  const { createLogger } = await import(dist('infra/dist/log/index.js'));
  const kit = { host, meshConfigSchema, migrate, openDatabase, systemClock, createLogger };

  const dir = mkdtempSync(path.join(tmpdir(), 'ol-bench-workflow-'));
  writeFileSync(path.join(dir, 'dag.yaml'), dagFile());

  const perStep = [];
  for (let trial = 0; trial <= TRIALS; trial++) {
    const ms = await runOnce(kit, dir, path.join(dir, `run-${trial}.db`));
    if (trial > 0) perStep.push(ms / STEPS); // the first run warms the JIT up
  }
  const resume = [];
  const resumeToDone = [];
  for (let trial = 0; trial < 5; trial++) {
    const measured = await resumeOnce(kit, dir, path.join(dir, `resume-${trial}.db`));
    resume.push(measured.resumeMs);
    resumeToDone.push(measured.doneMs);
  }
  const metrics = {
    method: `${STEPS}-step DAG (${LAYERS} layers x ${WIDTH}), lanes double completing items at once: engine time only; mesh.db a WAL file`,
    engine_ms_per_step: round(median(perStep)),
    engine_ms_per_step_max: round(Math.max(...perStep)),
    run_ms_100_steps: round(median(perStep) * STEPS),
    resume_ms: round(median(resume)),
    resume_ms_max: round(Math.max(...resume)),
    resume_to_done_ms: round(median(resumeToDone)),
  };
  const targets = { engine_ms_per_step: TARGET_MS_PER_STEP, resume_ms: TARGET_RESUME_MS };
  const pass = metrics.engine_ms_per_step <= TARGET_MS_PER_STEP && metrics.resume_ms_max <= TARGET_RESUME_MS;
  const file = writeResults('workflow', metrics, targets, pass);
  console.log(
    `engine time per step: ${metrics.engine_ms_per_step} ms (max ${metrics.engine_ms_per_step_max}; ${TRIALS} runs of ${STEPS} steps)`,
  );
  console.log(
    `resume after restart: ${metrics.resume_ms} ms from host ready to the run picked up (max ${metrics.resume_ms_max}); ${metrics.resume_to_done_ms} ms to its end`,
  );
  console.log(`${pass ? 'PASS' : 'FAIL'} — wrote ${path.relative(ROOT, file)}`);
  return 0;
}

/** One run of the DAG on a fresh mesh.db: wall ms from start to the run's end. */
async function runOnce(kit, dir, dbFile) {
  const mesh = await openMesh(kit, dir, dbFile, () => 'complete');
  const started = performance.now();
  const run = await mesh.workflows.engine.startRun({ workflow: await mesh.workflows.catalog.load('dag') });
  await mesh.ended(run.id);
  const ms = performance.now() - started;
  await mesh.close();
  return ms;
}

/**
 * Run the DAG until half its layers are done with the next layer in flight, stop the host, then
 * start a new one over the same file: ms from its start to the run picked up (every in-flight step
 * re-attached, the next steps handed over), and to the run's end.
 */
async function resumeOnce(kit, dir, dbFile) {
  const holdFrom = `L${LAYERS / 2}-`;
  const before = await openMesh(kit, dir, dbFile, (request) =>
    request.message.startsWith(holdFrom) ? 'hold' : 'complete',
  );
  const run = await before.workflows.engine.startRun({
    workflow: await before.workflows.catalog.load('dag'),
  });
  await before.settled(() => before.heldCount() === WIDTH);
  await before.close();

  const after = await openMesh(kit, dir, dbFile, () => 'complete', { start: false, lanesFrom: before });
  // The lanes start before the workflows and run again what was running when the host stopped.
  after.lanes.releaseHeld();
  const began = performance.now();
  await after.start();
  const resumeMs = performance.now() - began;
  await after.ended(run.id);
  const doneMs = performance.now() - began;
  await after.close();
  return { resumeMs, doneMs };
}

/** The workflows feature over a mesh.db file and a lanes double; `decide` says which items complete at once. */
async function openMesh(kit, dir, dbFile, decide, options = {}) {
  const { host, meshConfigSchema, migrate, openDatabase, systemClock, createLogger } = kit;
  const db = openDatabase(dbFile);
  const lanes = options.lanesFrom?.lanes ?? instantLanes();
  lanes.decide = decide;
  const feature = host.workflowsFeature({ lanes, dir });
  migrate(db, [{ feature: feature.name, steps: feature.migrations }]);
  const controller = new AbortController();
  const agents = Object.fromEntries(Array.from({ length: WIDTH }, (_, i) => [`a${i}`, {}]));
  const logger = createLogger({ level: 'silent' });
  const context = {
    config: meshConfigSchema.parse({ llm: { providers: { openai: {} } }, agents }),
    dataDir: dir,
    resolvePath: (relative) => path.resolve(dir, relative),
    db,
    clock: systemClock,
    logger,
    secrets: { get: () => undefined },
    signal: controller.signal,
    warn: (message) => console.warn(message),
    events: new host.EventBus(logger),
    tokens: new host.TokenRegistry(),
    notices: new host.OperatorNotices(logger),
  };
  const services = new Map();
  const [built] = host.buildFeatures([feature], context, services);
  const workflows = services.get(host.WORKFLOWS.name);
  const start = () => built.start();
  if (options.start !== false) await start();
  const settled = async (done) => {
    while (!done()) await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    workflows,
    lanes,
    start,
    settled,
    heldCount: () => lanes.held.size,
    ended: (runId) => settled(() => workflows.repository.run(runId)?.state !== 'running'),
    async close() {
      controller.abort();
      await built.stop();
      db.close();
    },
  };
}

/** Lanes that complete each item as soon as it is queued (or hold it); items live in memory. */
function instantLanes() {
  const byKey = new Map();
  const held = new Map();
  let deliver = async () => {};
  let nextId = 1;
  const lanes = {
    decide: () => 'complete',
    held,
    async enqueue(request) {
      const existing = byKey.get(request.idempotencyKey);
      if (existing) {
        // A restart re-attaches to an item the lanes still hold: it runs again and completes.
        if (existing.state === 'running') {
          held.delete(existing.id);
          complete(existing);
        }
        return { item: existing, outcome: 'existing' };
      }
      const item = {
        id: nextId++,
        agent: request.agent,
        message: request.message,
        idempotencyKey: request.idempotencyKey,
        sourceRef: request.sourceRef,
        source: request.source,
        state: 'running',
        resultText: null,
        errorCode: null,
        errorMessage: null,
      };
      byKey.set(item.idempotencyKey, item);
      if (lanes.decide(request) === 'hold') held.set(item.id, item);
      else complete(item);
      return { item: { ...item }, outcome: 'queued' };
    },
    deliverTo: (_source, handler) => {
      deliver = handler;
    },
    cancel: () => {},
    byKey: (key) => byKey.get(key),
  };
  const complete = (item) =>
    queueMicrotask(() => {
      item.state = 'done';
      item.resultText = `out ${item.message.slice(0, 12)}`;
      void deliver({ ...item });
    });
  // After a restart, the lanes run what they held again (as the real lanes requeue running items).
  lanes.releaseHeld = () => {
    for (const item of held.values()) complete(item);
    held.clear();
  };
  return lanes;
}

function dagFile() {
  const steps = [];
  for (let layer = 0; layer < LAYERS; layer++) {
    for (let i = 0; i < WIDTH; i++) {
      const id = `s${layer}_${i}`;
      const deps = layer === 0 ? [] : [`s${layer - 1}_${i}`, `s${layer - 1}_${(i + 1) % WIDTH}`];
      const task = layer === 0 ? `L${layer}-${i} start` : `L${layer}-${i} from \${steps.${deps[0]}.output}`;
      steps.push(
        `  - { id: ${id}, agent: a${i}, task: "${task}"${deps.length ? `, depends_on: [${deps.join(', ')}]` : ''} }`,
      );
    }
  }
  return `name: dag\nsteps:\n${steps.join('\n')}\n`;
}

function round(value) {
  return Math.round(value * 1000) / 1000;
}
