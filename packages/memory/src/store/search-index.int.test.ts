import { openDatabase } from '@openlegion/infra/sqlite';
import { describe, expect, it } from 'vitest';
import { createLocalEmbedder } from '../embed/local-embedder.js';
import { MemoryEngine } from '../memory-engine.js';
import { selectiveTerms } from '../retrieval/selective-terms.js';
import { searchText } from './fts-index.js';
import { openMemoryDb } from './memory-db.js';
import { prepared } from './statement-cache.js';
import { documentFrequencies, indexedCount } from './term-stats.js';

const RANKING_ONLY = { minScore: 0, hardMinScore: 0, recordAccess: false, mmrLambda: 1 };

/** A database with `rows` FTS rows: `scope` for each, and `text(i)` as content. */
function ftsDb(rows: number, scope: (i: number) => string, text: (i: number) => string) {
  const db = openMemoryDb(':memory:');
  const insert = db.prepare(
    `INSERT INTO memory_items (id, scope, category, abstract, overview, content, tier, temporal_type, importance,
       confidence, created_at, updated_at, source) VALUES (?, ?, 'events', '', '', ?, 'working', 'static', 0.5, 1, 0, 0, 'import')`,
  );
  const index = db.prepare('INSERT INTO memory_fts (rowid, abstract, overview, content) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= rows; i++) {
      insert.run(i, scope(i), text(i));
      index.run(i, '', '', text(i));
    }
  })();
  return db;
}

describe('the full-text index', () => {
  it('finds the best matches of a scope that holds few of the items (the second, filtered pass)', () => {
    const db = ftsDb(
      200,
      (i) => (i % 50 === 0 ? 'agent:rare' : 'agent:common'),
      (i) => `harbour ${i % 3 === 0 ? 'harbour harbour' : ''} note ${i}`,
    );
    const hits = searchText(db, '"harbour"', 3, ['agent:rare']);
    expect(hits.map((hit) => hit.id).sort((a, b) => a - b)).toEqual([50, 100, 150]);
    expect(hits.every((hit) => hit.bm25 > 0)).toBe(true);
    db.close();
  });

  it('ranks by BM25 across scopes the same in one pass as the unbounded query', () => {
    const db = ftsDb(
      300,
      () => 'agent:a',
      (i) => `${'kelp '.repeat(1 + (i % 7))}tide ${i}`,
    );
    const expected = db
      .prepare<[], { id: number }>(
        'SELECT rowid AS id FROM memory_fts WHERE memory_fts MATCH \'"kelp"\' ORDER BY bm25(memory_fts, 1, 1, 1), rowid LIMIT 10',
      )
      .all()
      .map((row) => row.id);
    const got = searchText(db, '"kelp"', 10, ['agent:a']).map((hit) => hit.id);
    expect(new Set(got)).toEqual(new Set(expected));
    db.close();
  });

  it('counts indexed items and term frequencies, and sees a write made after the first count', () => {
    const db = ftsDb(
      30,
      () => 'agent:a',
      (i) => (i <= 10 ? 'otter river' : 'river'),
    );
    expect(indexedCount(db)).toBe(30);
    expect(documentFrequencies(db, ['otter', 'river', 'absent'])).toEqual(
      new Map([
        ['otter', 10],
        ['river', 30],
        ['absent', 0],
      ]),
    );
    db.prepare(
      "INSERT INTO memory_fts (rowid, abstract, overview, content) VALUES (31, '', '', 'otter')",
    ).run();
    expect(documentFrequencies(db, ['otter']).get('otter')).toBe(11);
    expect(indexedCount(db)).toBe(31);
    db.close();
  });

  it('leaves terms found in most items out of the match, keeping the rarest when all are common', () => {
    const db = ftsDb(
      100,
      () => 'agent:a',
      (i) => `common ${i % 2 === 0 ? 'usual' : ''} ${i === 7 ? 'unique' : ''}`,
    );
    const config = { bm25CommonTermShare: 0.3, bm25CommonTermMinItems: 10 };
    expect(selectiveTerms(db, ['common', 'usual', 'unique'], config)).toEqual(['unique']);
    expect(selectiveTerms(db, ['common', 'usual'], config)).toEqual(['usual']);
    expect(selectiveTerms(db, ['common', 'usual'], { ...config, bm25CommonTermShare: 1 })).toEqual([
      'common',
      'usual',
    ]);
    expect(selectiveTerms(db, ['common', 'usual'], { ...config, bm25CommonTermMinItems: 1_000 })).toEqual([
      'common',
      'usual',
    ]);
    db.close();
  });
});

describe('cached statements', () => {
  it('are compiled once per connection and still run after the table they read is recreated', () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1)');
    const first = prepared<[], { v: number }>(db, 'SELECT v FROM t');
    expect(prepared(db, 'SELECT v FROM t')).toBe(first);
    db.exec('DROP TABLE t; CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (2)');
    expect(prepared<[], { v: number }>(db, 'SELECT v FROM t').get()?.v).toBe(2);
    db.close();
  });
});

describe('retrieval signals', () => {
  it('updates category counts, summaries and centroids once per batch, as item by item would', async () => {
    const batched = MemoryEngine.open({ file: ':memory:', embedder: createLocalEmbedder() });
    const single = MemoryEngine.open({ file: ':memory:', embedder: createLocalEmbedder() });
    const facts = ['Owls hunt at night.', 'Bats sleep by day.', 'Moths follow light.'].map((content) => ({
      content,
      category: 'entities',
    }));
    await batched.save(facts, { dedup: false });
    for (const fact of facts) await single.save([fact], { dedup: false });
    const entities = (engine: MemoryEngine) =>
      engine.categories().find((category) => category.name === 'entities');
    expect(entities(batched)).toMatchObject({ itemCount: 3, summary: entities(single)?.summary });
    const query = { query: 'nocturnal owls', strategy: 'hierarchical', config: RANKING_ONLY } as const;
    const [fromBatched, fromSingle] = await Promise.all([
      batched.searchHierarchical(query),
      single.searchHierarchical(query),
    ]);
    expect(fromBatched.categoriesSearched).toEqual(fromSingle.categoriesSearched);
    expect(fromBatched.categoriesSearched).toContain('entities');
    batched.close();
    single.close();
  });

  it('finds through pseudo-relevance feedback an item that shares no word with the query', async () => {
    const engine = MemoryEngine.open({ file: ':memory:' });
    await engine.save(
      [
        'Grandma bakes sourdough with rye flour every Sunday.',
        'Grandma keeps her sourdough starter in the fridge.',
        'The rye flour comes from a mill near the lake.',
        'Tuesday is the day for football practice.',
        'The car needs new tyres before winter.',
        'Paint the fence green in spring.',
      ].map((content) => ({ content })),
      { dedup: false },
    );
    const query = { query: 'what does grandma bake', config: { ...RANKING_ONLY, feedbackTerms: 10 } };
    const withFeedback = await engine.search(query);
    expect(withFeedback.hits.map((hit) => hit.item.content)).toContain(
      'The rye flour comes from a mill near the lake.',
    );
    const without = await engine.search({ ...query, config: { ...query.config, feedbackTerms: 0 } });
    expect(without.hits.map((hit) => hit.item.content)).not.toContain(
      'The rye flour comes from a mill near the lake.',
    );
    engine.close();
  });

  it('keeps the feedback terms within twice the common-term cutoff of items', async () => {
    const engine = MemoryEngine.open({ file: ':memory:' });
    const filler = Array.from({ length: 10 }, (_, i) => `The weather report number ${i} says fine.`);
    await engine.save(
      [
        'Grandma bakes bread with rye and oats.',
        'Grandma likes bread, rye and oats.',
        'A rye field to the north.',
        'A rye field to the south.',
        'Oats porridge for breakfast.',
        'Oats cereal with milk.',
        ...filler,
      ].map((content) => ({ content })),
      { dedup: false },
    );
    const found = async (minItems: number) => {
      const result = await engine.search({
        query: 'grandma bakes',
        limit: 20,
        config: {
          ...RANKING_ONLY,
          feedbackTerms: 10,
          bm25CommonTermShare: 0.1,
          bm25CommonTermMinItems: minItems,
        },
      });
      const contents = result.hits.map((hit) => hit.item.content);
      return {
        rye: contents.includes('A rye field to the north.'),
        oats: contents.includes('Oats porridge for breakfast.'),
      };
    };
    // rye and oats are each in 4 items: with a cutoff of 4 the budget is 8 (bread's 2 + one of them).
    const bounded = await found(4);
    expect(bounded.rye !== bounded.oats).toBe(true);
    expect(await found(100)).toEqual({ rye: true, oats: true });
    engine.close();
  });

  it('with rank fusion puts the item first on both signals first, ordered by fused rank', async () => {
    const engine = MemoryEngine.open({ file: ':memory:', embedder: createLocalEmbedder() });
    await engine.save(
      ['Seals rest on the rocks.', 'Seals and sea lions bark.', 'Rocks hold the tide pools.'].map(
        (content) => ({
          content,
        }),
      ),
      { dedup: false },
    );
    const result = await engine.search({
      query: 'seals rest rocks',
      config: { ...RANKING_ONLY, fusion: 'rrf', feedbackTerms: 0 },
    });
    expect(result.hits[0]?.item.content).toBe('Seals rest on the rocks.');
    const scores = result.hits.map((hit) => hit.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(scores.every((score) => score <= 1 && score > 0)).toBe(true);
    engine.close();
  });
});
