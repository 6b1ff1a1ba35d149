// The load generator of the llm-proxy benchmark, in its own thread: `count` non-stream completions
// with `concurrency` in flight; posts back the wall time.
import { parentPort, workerData } from 'node:worker_threads';

const { url, headers, count, concurrency, body } = workerData;
let next = 0;
let failures = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < count) {
      next += 1;
      const response = await fetch(url, { method: 'POST', headers, body });
      if (response.status !== 200) failures += 1;
      await response.arrayBuffer();
    }
  }),
);
parentPort.postMessage({ ms: performance.now() - started, failures });
