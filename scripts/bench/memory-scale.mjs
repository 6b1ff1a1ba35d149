// memory-scale: search latency (p50/p99, hybrid flat search) at 10k and 100k synthetic items, and
// the ingest rate with the local embedder, in one run on a temporary database file. Beside them, the
// floor sqlite-vec's KNN alone would put under search, and how often the engine's vector search (an
// in-memory int8 scan at these sizes) returns the same top 10 as sqlite-vec's exact KNN.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SIZES = [10_000, 100_000];
const QUERIES = 200;
const BATCH = 1_000;
const VOCABULARY = 20_000;
const KNN_QUERIES = 50;
const TARGETS = { p50_ms_10k: 5, p50_ms_100k: 25, ingest_items_per_s: 2_000 };

export async function main() {
  const memory = await import(path.join(ROOT, 'packages/memory/dist/index.js'));
  const dir = mkdtempSync(path.join(tmpdir(), 'memory-scale-'));
  const random = mulberry32(42);
  const words = Array.from({ length: VOCABULARY }, (_, index) => syntheticWord(index));
  const sentence = () =>
    Array.from({ length: 8 + Math.floor(random() * 16) }, () => words[zipf(random)]).join(' ');
  const embedder = memory.createLocalEmbedder();
  const engine = memory.MemoryEngine.open({
    file: path.join(dir, 'memory.db'),
    embedder,
    defaultScopes: ['agent:bench', 'global'],
  });
  const metrics = {
    embedder: engine.modes.embedder,
    queries_per_size: QUERIES,
    search: 'hybrid flat, limit 10',
    // The machine is shared: its load when the run starts and ends says how far to trust the latencies.
    load_average_1m_start: round(loadavg()[0]),
  };
  const ingestMs = [];
  let stored = 0;
  try {
    for (const size of SIZES) {
      while (stored < size) {
        const facts = Array.from({ length: BATCH }, () => ({
          content: sentence(),
          category: 'entities',
          source: 'import',
        }));
        const started = performance.now();
        await engine.save(facts, { dedup: false });
        ingestMs.push(performance.now() - started);
        stored += BATCH;
      }
      const latencies = [];
      const queryVectors = [];
      for (let i = 0; i < QUERIES; i++) {
        const query = Array.from({ length: 3 + Math.floor(random() * 5) }, () => words[zipf(random)]).join(
          ' ',
        );
        if (i < KNN_QUERIES) queryVectors.push((await embedder.embed([query]))[0]);
        const started = performance.now();
        await engine.search({ query, limit: 10, config: { recordAccess: false } });
        latencies.push(performance.now() - started);
      }
      const label = `${size / 1000}k`;
      metrics[`knn_only_p50_ms_${label}`] = round(knnFloor(path.join(dir, 'memory.db'), queryVectors));
      metrics[`vector_top10_agreement_${label}`] = round(
        await agreementWithSqliteVec(memory, engine, path.join(dir, 'memory.db'), words, random),
      );
      metrics[`p50_ms_${label}`] = round(median(latencies));
      metrics[`p99_ms_${label}`] = round(percentile(latencies, 0.99));
      console.log(
        `${label} items: search p50 ${metrics[`p50_ms_${label}`]} ms, p99 ${metrics[`p99_ms_${label}`]} ms ` +
          `(the vec0 KNN alone: p50 ${metrics[`knn_only_p50_ms_${label}`]} ms; ` +
          `vector top 10 as sqlite-vec's: ${metrics[`vector_top10_agreement_${label}`]})`,
      );
    }
    metrics.ingest_items_per_s = Math.round(
      (BATCH * ingestMs.length) / (ingestMs.reduce((a, b) => a + b, 0) / 1000),
    );
    metrics.ingest = 'save() batches of 1000 with the local embedder, dedup off (bulk load)';
    metrics.load_average_1m_end = round(loadavg()[0]);
    console.log(`ingest: ${metrics.ingest_items_per_s} items/s`);
  } finally {
    engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const pass =
    metrics.p50_ms_10k <= TARGETS.p50_ms_10k &&
    metrics.p50_ms_100k <= TARGETS.p50_ms_100k &&
    metrics.ingest_items_per_s >= TARGETS.ingest_items_per_s;
  const file = writeResults('memory-scale', metrics, TARGETS, pass);
  console.log(`${pass ? 'PASS' : 'FAIL'} — wrote ${path.relative(ROOT, file)}`);
  return 0;
}

/**
 * The floor under hybrid search: sqlite-vec's k-nearest query alone (same k, same scope filter) on a
 * second connection to the same file, so the engine's own share of the latency can be read off.
 */
function knnFloor(file, vectors) {
  const require = createRequire(path.join(ROOT, 'packages/memory/package.json'));
  const Database = require('better-sqlite3');
  const db = new Database(file, { readonly: true });
  try {
    db.pragma('mmap_size = 1073741824');
    db.loadExtension(require('sqlite-vec').getLoadablePath());
    const knn = db.prepare(
      "SELECT rowid, distance FROM memory_vec WHERE embedding MATCH ? AND k = 20 AND scope IN ('agent:bench', 'global')",
    );
    const times = vectors.map((vector) => {
      const started = performance.now();
      knn.all(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
      return performance.now() - started;
    });
    return median(times);
  } finally {
    db.close();
  }
}

/** Ranking by the vector alone: what is left of the pipeline orders by vector similarity. */
const VECTOR_RANKING = {
  bm25Weight: 0,
  vectorWeight: 1,
  minScore: 0,
  hardMinScore: 0,
  recordAccess: false,
  decay: false,
  recencyWeight: 0,
  importanceBase: 1,
  lengthPenalty: 0,
  mmrLambda: 1,
};

/**
 * The share of the vector-ranked top 10 the engine returns that a second engine on the same file,
 * made to use sqlite-vec's exact KNN, returns too (1 = the scan loses nothing).
 */
async function agreementWithSqliteVec(memory, engine, file, words, random) {
  const exact = memory.MemoryEngine.open({
    file,
    embedder: memory.createLocalEmbedder(),
    defaultScopes: ['agent:bench', 'global'],
    vectorScanMinItems: Number.POSITIVE_INFINITY,
  });
  let same = 0;
  let total = 0;
  try {
    for (let i = 0; i < KNN_QUERIES; i++) {
      const query = Array.from({ length: 3 + Math.floor(random() * 5) }, () => words[zipf(random)]).join(' ');
      const request = { query, limit: 10, config: VECTOR_RANKING };
      const ours = new Set((await engine.search(request)).hits.map((hit) => hit.item.id));
      const theirs = (await exact.search(request)).hits.map((hit) => hit.item.id);
      same += theirs.filter((id) => ours.has(id)).length;
      total += theirs.length;
    }
  } finally {
    exact.close();
  }
  return total > 0 ? same / total : 1;
}

/** A pronounceable made-up word per index, so the vocabulary is fixed and shared by no real text. */
function syntheticWord(index) {
  const syllables = ['ka', 'lo', 'mi', 'ren', 'tu', 'sa', 'vi', 'dor', 'pe', 'nix', 'bra', 'qui'];
  let word = '';
  let rest = index + 1;
  while (rest > 0) {
    word += syllables[rest % syllables.length];
    rest = Math.floor(rest / syllables.length);
  }
  return word;
}

/** A word index drawn with Zipf-like frequencies, as words in real text are. */
function zipf(random) {
  return Math.min(VOCABULARY - 1, Math.floor(Math.exp(random() * Math.log(VOCABULARY))) - 1);
}

function mulberry32(seed) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

const round = (value) => Math.round(value * 100) / 100;
