// The load generator of the mesh benchmark, in its own thread, so the host under test keeps a core.
import { parentPort, workerData } from 'node:worker_threads';

const { url, headers, count, concurrency, method, body } = workerData;
let next = 0;
let failures = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++;
      const response = await fetch(`${url}/${i % 1000}`, {
        method,
        headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
        ...(body ? { body: JSON.stringify({ value: { i, note: body } }) } : {}),
      });
      if (response.status !== 200) failures += 1;
      await response.arrayBuffer();
    }
  }),
);
parentPort.postMessage({ ms: performance.now() - started, failures });
