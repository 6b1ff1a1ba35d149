// The load generator of the llm-proxy benchmark, in its own thread: `count` non-stream completions
// with `concurrency` in flight; posts back the wall time. It calls through a keep-alive undici Pool
// rather than fetch: fetch costs the client several times the CPU per call, and a client that
// saturates first makes every path look alike (direct, reference and host all at the client's pace).
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const { url, headers, count, concurrency, body, undiciFrom } = workerData;
const { Pool } = createRequire(undiciFrom)('undici');
const target = new URL(url);
const pool = new Pool(target.origin, { connections: concurrency });
let next = 0;
let failures = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < count) {
      next += 1;
      const response = await pool.request({ path: target.pathname, method: 'POST', headers, body });
      if (response.statusCode !== 200) failures += 1;
      await response.body.arrayBuffer();
    }
  }),
);
const ms = performance.now() - started;
await pool.close();
parentPort.postMessage({ ms, failures });
