import { FakeClock } from '@openlegion/infra/clock';
import { describe, expect, it } from 'vitest';
import { createLocalEmbedder } from '../embed/local-embedder.js';
import { MemoryEngine } from '../memory-engine.js';

const DAY = 86_400_000;

function engine(): MemoryEngine {
  return MemoryEngine.open({
    file: ':memory:',
    embedder: createLocalEmbedder(),
    clock: new FakeClock(500 * DAY),
  });
}

describe('JSONL export and import', () => {
  it('round-trips every field of every item, history included, losslessly', async () => {
    const source = engine();
    await source.save([
      {
        content: 'Prefers dark roast coffee.',
        category: 'preferences',
        importance: 0.9,
        sourceRef: 'chat-1',
      },
      { content: 'Kickoff held in Oslo.', category: 'events', scope: 'project:north', source: 'chat' },
      { content: 'My name is Eve.', category: 'profile' },
    ]);
    await source.save([{ content: 'Lives in Bergen.', category: 'profile' }]);
    await source.search({ query: 'coffee roast', config: { minScore: 0, hardMinScore: 0 } });
    const exported = [...source.exportJsonl()].join('');

    const target = engine();
    expect(await target.importJsonl(exported, { ids: 'keep' })).toEqual({ imported: 3 });
    expect([...target.exportJsonl()].join('')).toBe(exported);
    const found = await target.search({
      query: 'coffee',
      config: { minScore: 0, hardMinScore: 0, recordAccess: false },
    });
    expect(found.hits[0]?.item.content).toBe('Prefers dark roast coffee.');
    source.close();
    target.close();
  });

  it('gives new ids by default, keeping superseded links inside the file', async () => {
    const target = engine();
    await target.save([{ content: 'Already here.' }]);
    const base = {
      scope: 'global',
      overview: '',
      tier: 'working',
      temporalType: 'dynamic',
      importance: 0.5,
      confidence: 1,
    };
    const meta = {
      accessCount: 0,
      lastAccessedAt: null,
      createdAt: 1,
      updatedAt: 1,
      source: 'import',
      sourceRef: null,
    };
    const lines = [
      {
        id: 1,
        category: 'preferences',
        abstract: 'Likes tea',
        content: 'Likes tea',
        version: 1,
        supersededBy: 2,
      },
      {
        id: 2,
        category: 'preferences',
        abstract: 'Likes coffee',
        content: 'Likes coffee',
        version: 2,
        supersededBy: null,
      },
    ].map((line) => JSON.stringify({ ...base, ...meta, ...line }));
    await target.importJsonl(lines.join('\n'));
    const all = target.list({ includeSuperseded: true });
    expect(all.map((item) => [item.id, item.content, item.supersededBy])).toEqual([
      [1, 'Already here.', null],
      [2, 'Likes tea', 3],
      [3, 'Likes coffee', null],
    ]);
    expect(target.list().map((item) => item.content)).toEqual(['Already here.', 'Likes coffee']);
    target.close();
  });

  it('reports corrupt lines by line number and imports nothing', async () => {
    const source = engine();
    await source.save([{ content: 'One.' }, { content: 'Two.' }]);
    const [good, second] = [...source.exportJsonl()];
    const badScope = JSON.stringify({ ...JSON.parse(second ?? '{}'), scope: 'team:x' });
    const text = [good?.trimEnd(), '', '{not json', badScope, ''].join('\n');
    const target = engine();
    const failure = await target.importJsonl(text).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'MEM_IMPORT_INVALID',
      details: {
        lines: [
          { line: 3, problem: 'not valid JSON' },
          { line: 4, problem: expect.stringContaining('scope') },
        ],
      },
    });
    expect(target.list({ includeSuperseded: true })).toEqual([]);
    source.close();
    target.close();
  });

  it('refuses to keep ids that are already taken', async () => {
    const source = engine();
    await source.save([{ content: 'Taken.' }]);
    await expect(
      source.importJsonl([...source.exportJsonl()].join(''), { ids: 'keep' }),
    ).rejects.toMatchObject({
      code: 'MEM_IMPORT_INVALID',
    });
    source.close();
  });
});
