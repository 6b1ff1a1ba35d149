import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocalEmbedder } from '../../embed/local-embedder.js';
import { MemoryEngine } from '../../memory-engine.js';
import { openMemoryDb } from '../memory-db.js';
import { VectorIndex } from '../vector-index.js';

const tempFile = () => join(mkdtempSync(join(tmpdir(), 'vector-scan-')), 'memory.db');
const embedder = createLocalEmbedder({ dimensions: 64 });
const RANKING = { minScore: 0, hardMinScore: 0, recordAccess: false, bm25Weight: 0, vectorWeight: 1 };
const FACTS = [
  'The staging database runs on port 5433.',
  'Deploys happen on Tuesdays after the standup.',
  'The user prefers tabs over spaces.',
  'Our CI runs on two-core machines.',
  'Backups of the staging database are kept for a week.',
  'The office plant needs water on Fridays.',
].map((content) => ({ content }));

const unitVector = (...values: number[]) => {
  const norm = Math.hypot(...values);
  return Float32Array.from(values, (value) => value / norm);
};

/** A bare item row for VectorIndex tests (the index reads scope, category and the vector copy from it). */
function insertItem(db: ReturnType<typeof openMemoryDb>, id: number): void {
  db.prepare(
    `INSERT INTO memory_items (id, scope, category, abstract, overview, content, tier, temporal_type,
       importance, confidence, created_at, updated_at, source)
     VALUES (?, 'global', 'events', '', '', 'x', 'working', 'static', 0.5, 0.5, 0, 0, 'tool')`,
  ).run(id);
}

describe('vector search through the in-memory scan', () => {
  it('ranks exactly as sqlite-vec does, with the same similarities', async () => {
    const file = tempFile();
    const scanned = MemoryEngine.open({ file, embedder, vectorScanMinItems: 0 });
    await scanned.save(FACTS, { dedup: false });
    const plain = MemoryEngine.open({ file, embedder, vectorScanMinItems: Number.POSITIVE_INFINITY });
    for (const query of ['staging database', 'when are deploys', 'indentation']) {
      const a = await scanned.search({ query, config: RANKING });
      const b = await plain.search({ query, config: RANKING });
      expect(a.hits.map((hit) => hit.item.id)).toEqual(b.hits.map((hit) => hit.item.id));
      a.hits.forEach((hit, i) => {
        expect(hit.vectorScore).toBeCloseTo(b.hits[i]?.vectorScore ?? -1, 5);
      });
    }
    scanned.close();
    plain.close();
  });

  it("sees another connection's saves and deletes at its next search", async () => {
    const file = tempFile();
    const reader = MemoryEngine.open({ file, embedder, vectorScanMinItems: 0 });
    const writer = MemoryEngine.open({ file, embedder, vectorScanMinItems: 0 });
    await writer.save(FACTS, { dedup: false });
    expect(
      (await reader.search({ query: 'office plant water', config: RANKING })).hits[0]?.item.content,
    ).toBe('The office plant needs water on Fridays.');
    const [saved] = (await writer.save([{ content: 'The office plant was moved to the balcony.' }])).outcomes;
    const moved = (await reader.search({ query: 'office plant balcony', config: RANKING })).hits[0]?.item;
    expect(moved?.id).toBe(saved?.id);
    writer.delete(moved?.id ?? -1);
    const after = await reader.search({ query: 'office plant balcony', limit: 20, config: RANKING });
    expect(after.hits.map((hit) => hit.item.id)).not.toContain(moved?.id);
    reader.close();
    writer.close();
  });

  it('keeps nothing of a write that was rolled back, and uses sqlite-vec inside a transaction', () => {
    const db = openMemoryDb(':memory:');
    const index = new VectorIndex(db, 0);
    index.ensure('test', 3);
    insertItem(db, 1);
    index.insert(1, unitVector(1, 0, 0), 'global', 'events');
    expect(index.knn(unitVector(0, 1, 0), 5, ['global']).map((hit) => hit.id)).toEqual([1]);
    expect(() =>
      db.transaction(() => {
        insertItem(db, 2);
        index.insert(2, unitVector(0, 1, 0), 'global', 'events');
        // Inside the transaction its own write is found (sqlite-vec sees it; the scan copy is not used).
        expect(index.knn(unitVector(0, 1, 0), 1, ['global'])[0]?.id).toBe(2);
        throw new Error('abort the batch');
      })(),
    ).toThrow('abort the batch');
    expect(index.knn(unitVector(0, 1, 0), 5, ['global']).map((hit) => hit.id)).toEqual([1]);
    insertItem(db, 3);
    index.insert(3, unitVector(0, 0.9, 0.1), 'global', 'events');
    expect(index.knn(unitVector(0, 1, 0), 5, ['global']).map((hit) => hit.id)).toEqual([3, 1]);
    db.close();
  });

  it('rebuilds from the items when log entries it had not seen were pruned', async () => {
    const file = tempFile();
    const reader = MemoryEngine.open({ file, embedder, vectorScanMinItems: 0 });
    const writer = MemoryEngine.open({ file, embedder, vectorScanMinItems: 0 });
    await writer.save(FACTS.slice(0, 3), { dedup: false });
    expect((await reader.search({ query: 'tabs spaces', config: RANKING })).hits).toHaveLength(3);
    await writer.save(FACTS.slice(3), { dedup: false });
    const db = openMemoryDb(file);
    db.prepare('DELETE FROM memory_vector_log').run();
    db.close();
    await writer.save([{ content: 'The balcony gets sun after noon.' }]);
    const hits = (await reader.search({ query: 'balcony sun', limit: 20, config: RANKING })).hits;
    expect(hits).toHaveLength(FACTS.length + 1);
    expect(hits[0]?.item.content).toBe('The balcony gets sun after noon.');
    reader.close();
    writer.close();
  });

  it('stays on sqlite-vec below the size threshold and scans the copy from it on', () => {
    for (const [minItems, expected] of [
      [100, [1, 2]],
      [0, [2]],
    ] as const) {
      const db = openMemoryDb(':memory:');
      const index = new VectorIndex(db, minItems);
      index.ensure('test', 3);
      for (const id of [1, 2]) {
        insertItem(db, id);
        index.insert(id, unitVector(1, id, 0), 'global', 'events');
      }
      // Item 1's vector is now only in sqlite-vec, so only a sqlite-vec search can find it.
      db.prepare('UPDATE memory_items SET embedding = NULL WHERE id = 1').run();
      expect(index.knn(unitVector(1, 1, 0), 5, ['global']).map((hit) => hit.id)).toEqual(expected);
      expect(index.searchMethod()).toEqual(
        minItems === 0
          ? { method: 'int8-scan', copiedVectors: 1 }
          : { method: 'sqlite-vec', copiedVectors: 0 },
      );
      db.close();
    }
  });
});
