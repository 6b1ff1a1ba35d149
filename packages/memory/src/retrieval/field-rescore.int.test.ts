import { describe, expect, it } from 'vitest';
import { createLocalEmbedder } from '../embed/local-embedder.js';
import { MemoryEngine } from '../memory-engine.js';
import { averageColumnLengths } from '../store/column-lengths.js';
import { openMemoryDb } from '../store/memory-db.js';

const SCOPE = 'agent:a';
const RANKING_ONLY = { minScore: 0, hardMinScore: 0, recordAccess: false, mmrLambda: 1 };

const fact = (content: string, overview = '') => ({
  content,
  abstract: content,
  overview,
  source: 'import' as const,
  category: 'events',
});

async function engineWith(facts: ReturnType<typeof fact>[], embedder = false) {
  const engine = MemoryEngine.open({
    file: ':memory:',
    defaultScopes: [SCOPE],
    ...(embedder ? { embedder: createLocalEmbedder() } : {}),
  });
  await engine.save(facts, { dedup: false });
  return engine;
}

describe('the BM25F second stage', () => {
  it('reads the average tokens per column from the full-text index', () => {
    const db = openMemoryDb(':memory:');
    expect(averageColumnLengths(db)).toBeUndefined();
    const index = db.prepare(
      'INSERT INTO memory_fts (rowid, abstract, overview, content) VALUES (?, ?, ?, ?)',
    );
    index.run(1, 'one two', 'a b c d', 'x');
    index.run(2, 'three', 'e f', 'y z w');
    expect(averageColumnLengths(db)).toEqual([1.5, 3, 2]);
    db.close();
  });

  it("ranks a statement above a shorter question with the same terms, where FTS5's bm25 alone does not", async () => {
    const engine = await engineWith([
      fact('Do you play the violin?'),
      fact('I play the violin every evening after work, mostly folk tunes.'),
    ]);
    const query = 'play violin';
    const fieldScored = await engine.search({ query, config: RANKING_ONLY });
    expect(fieldScored.hits.map((hit) => hit.item.content)[0]).toMatch(/^I play/);
    const ftsOnly = await engine.search({ query, config: { ...RANKING_ONLY, fieldScoring: 'fts' } });
    expect(ftsOnly.hits.map((hit) => hit.item.content)[0]).toMatch(/^Do you/);
    engine.close();
  });

  it("does not score an item's own text lower because its overview is long, as FTS5's bm25 does", async () => {
    const chatter = 'we talked about the weather and the long drive home from the coast '.repeat(4).trim();
    const engine = await engineWith([
      fact('The kayak trip on the lake was great.', 'short context'),
      fact('The kayak trip on the lake was great!', chatter),
      fact('Unrelated notes about groceries.', 'short context'),
    ]);
    const query = 'kayak lake';
    const fieldScored = await engine.search({ query, config: RANKING_ONLY });
    const [first, second] = fieldScored.hits.map((hit) => hit.bm25Score);
    expect(first).toBe(1);
    expect(second).toBeCloseTo(1, 12);
    const ftsOnly = await engine.search({ query, config: { ...RANKING_ONLY, fieldScoring: 'fts' } });
    const long = ftsOnly.hits.find((hit) => hit.item.overview === chatter);
    expect(ftsOnly.hits[0]?.item.overview).toBe('short context');
    expect(long?.bm25Score).toBeLessThan(0.9);
    engine.close();
  });
});
