// Shared by the benchmarks: the result file shape of ARCHITECTURE.md §6.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

const RESULTS_DIR = fileURLToPath(new URL('../../bench/results/', import.meta.url));

/** Write bench/results/<name>.json and return its path. */
export function writeResults(name, metrics, targets, pass) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = `${RESULTS_DIR}${name}.json`;
  const result = {
    name,
    date: new Date().toISOString(),
    machine: { cores: cpus().length, node: process.version },
    metrics,
    targets,
    pass,
  };
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
