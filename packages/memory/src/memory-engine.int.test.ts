import { FakeClock } from '@openlegion/infra/clock';
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalEmbedder } from './embed/local-embedder.js';
import { MemoryEngine } from './memory-engine.js';
import { defaultScopes } from './model/scope.js';

const DAY = 86_400_000;
const RANK_ONLY = { minScore: 0, hardMinScore: 0 };
const open: MemoryEngine[] = [];

function engine(options: { embedder?: boolean; clock?: FakeClock } = {}): MemoryEngine {
  const memory = MemoryEngine.open({
    file: ':memory:',
    ...(options.embedder === false ? {} : { embedder: createLocalEmbedder() }),
    clock: options.clock ?? new FakeClock(1_000 * DAY),
    defaultScopes: defaultScopes('a'),
  });
  open.push(memory);
  return memory;
}

afterEach(() => {
  for (const memory of open.splice(0)) memory.close();
});

const FACTS = [
  { content: 'The user prefers tabs over spaces for indentation.', category: 'preferences' },
  { content: 'Alice met Bob in Paris for the product kickoff.', category: 'events' },
  { content: 'The deploy failed because the disk was full; clearing old logs fixed it.', category: 'cases' },
];

describe('MemoryEngine search', () => {
  it('finds a saved fact by meaning words in hybrid mode and says so', async () => {
    const memory = engine();
    await memory.save(FACTS);
    const result = await memory.search({
      query: 'which indentation does the user prefer',
      config: RANK_ONLY,
    });
    expect(result.mode).toBe('hybrid');
    expect(result.embedder).toMatch(/^local-hash/);
    expect(result.hits[0]?.item.content).toContain('tabs over spaces');
  });

  it('works with no embedder, in BM25-only mode', async () => {
    const memory = engine({ embedder: false });
    const report = await memory.save(FACTS);
    expect(report.mode.embedder).toBeNull();
    const result = await memory.search({ query: 'deploy disk full', config: RANK_ONLY });
    expect(result.mode).toBe('bm25');
    expect(result.hits[0]?.item.category).toBe('cases');
  });

  it('searches the top categories first and widens when they are not sufficient', async () => {
    const memory = engine();
    await memory.save(FACTS);
    const result = await memory.searchHierarchical({ query: 'Paris kickoff', limit: 5, config: RANK_ONLY });
    expect(result.strategy).toBe('hierarchical');
    expect(result.categoriesSearched?.length).toBeGreaterThan(0);
    expect(result.widened).toBe(true);
    expect(result.hits[0]?.item.content).toContain('Paris');
  });

  it('keeps to the scopes asked for', async () => {
    const memory = engine();
    await memory.save([{ content: 'Project Zephyr ships in May.', scope: 'project:zephyr' }]);
    expect((await memory.search({ query: 'Zephyr ships', config: RANK_ONLY })).hits).toEqual([]);
    const scoped = await memory.search({
      query: 'Zephyr ships',
      scopes: ['project:zephyr'],
      config: RANK_ONLY,
    });
    expect(scoped.hits).toHaveLength(1);
  });

  it('counts returned items as accessed and promotes a peripheral item after three accesses', async () => {
    const clock = new FakeClock(1_000 * DAY);
    const memory = engine({ clock });
    await memory.save([{ content: 'The build server is called hopper.', tier: 'peripheral' }]);
    for (let i = 0; i < 3; i++) {
      await clock.advance(DAY);
      await memory.search({ query: 'build server name', config: RANK_ONLY });
    }
    const [item] = memory.list();
    expect(item).toMatchObject({ accessCount: 3, lastAccessedAt: 1_003 * DAY, tier: 'working' });
  });

  it('ranks a fresh item above an equally relevant old one (decay)', async () => {
    const clock = new FakeClock(1_000 * DAY);
    const memory = engine({ clock });
    await memory.save([{ content: 'Standup is at 9:30 in room Alder.', tier: 'peripheral' }]);
    await clock.advance(200 * DAY);
    await memory.save([{ content: 'Standup is at 9:30 in room Birch.', tier: 'peripheral' }]);
    const result = await memory.search({
      query: 'standup room',
      config: { ...RANK_ONLY, recordAccess: false },
    });
    expect(result.hits.map((hit) => hit.item.content)).toEqual([
      'Standup is at 9:30 in room Birch.',
      'Standup is at 9:30 in room Alder.',
    ]);
  });

  it('drops results under the hard minimum with default thresholds', async () => {
    const memory = engine();
    await memory.save(FACTS);
    const result = await memory.search({ query: 'quantum chromodynamics lattice' });
    expect(result.hits).toEqual([]);
  });
});

describe('MemoryEngine bad input', () => {
  it.each([
    ['an empty query', { query: '   ' }, 'MEM_QUERY_INVALID'],
    ['a huge query', { query: 'x'.repeat(8_001) }, 'MEM_QUERY_INVALID'],
    ['a limit of 0', { query: 'x', limit: 0 }, 'MEM_QUERY_INVALID'],
    ['an unknown scope', { query: 'x', scopes: ['team:x'] }, 'MEM_SCOPE_INVALID'],
    ['an unknown category', { query: 'x', categories: ['recipes'] }, 'MEM_CATEGORY_UNKNOWN'],
    ['a malformed category', { query: 'x', categories: ['Not A Name'] }, 'MEM_CATEGORY_INVALID'],
  ])('refuses %s', async (_, request, code) => {
    await expect(engine().search(request)).rejects.toMatchObject({ code });
  });

  it('refuses a batch with one bad fact and writes none of it', async () => {
    const memory = engine();
    await expect(
      memory.save([{ content: 'fine' }, { content: 'bad scope', scope: 'nope' }]),
    ).rejects.toMatchObject({
      code: 'MEM_SCOPE_INVALID',
    });
    await expect(memory.save([{ content: '' }])).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
    expect(memory.list()).toEqual([]);
  });

  it('answers a delete of an unknown id with MEM_ITEM_NOT_FOUND', () => {
    expect(() => engine().delete(42)).toThrow(expect.objectContaining({ code: 'MEM_ITEM_NOT_FOUND' }));
  });
});

describe('MemoryEngine writing', () => {
  it('drops in-batch duplicates and skips a fact already stored', async () => {
    const memory = engine();
    const first = await memory.save([
      { content: 'Carol works as a nurse in Leeds.', category: 'entities' },
      { content: 'Carol works as a nurse in Leeds!', category: 'entities' },
    ]);
    expect(first.outcomes.map((outcome) => outcome.action)).toEqual(['created', 'duplicate']);
    const again = await memory.save([{ content: 'Carol works as a nurse in Leeds.', category: 'entities' }]);
    expect(again.outcomes[0]?.action).toBe('skipped');
    expect(memory.list()).toHaveLength(1);
  });

  it('always merges profile facts into the one profile item of a scope', async () => {
    const memory = engine();
    await memory.save([{ content: 'My name is Dana.', category: 'profile' }]);
    const report = await memory.save([{ content: 'I am a marine biologist.', category: 'profile' }]);
    expect(report.outcomes[0]?.action).toBe('merged');
    const [profile] = memory.list({ categories: ['profile'] });
    expect(profile?.content).toBe('My name is Dana.\nI am a marine biologist.');
    expect(profile?.version).toBe(2);
  });

  it('files facts by wording when no category is given, and creates new categories on demand', async () => {
    const memory = engine();
    await memory.save([
      { content: 'I really love hiking in the Alps.' },
      { content: 'Sourdough needs 12 hours.', category: 'recipes' },
    ]);
    expect(memory.list().map((item) => item.category)).toEqual(['preferences', 'recipes']);
    const recipes = memory.categories().find((category) => category.name === 'recipes');
    expect(recipes).toMatchObject({ builtin: false, itemCount: 1, summary: 'Sourdough needs 12 hours.' });
  });

  it('keeps category counts and summaries in step when items are deleted', async () => {
    const memory = engine();
    const report = await memory.save(FACTS);
    memory.delete(report.outcomes[1]?.id ?? 0);
    expect(memory.categories().find((category) => category.name === 'events')).toMatchObject({
      itemCount: 0,
      summary: '',
    });
    expect(memory.stats()).toMatchObject({ items: 2, withVectors: 2 });
  });

  it('admits on probation, or rejects, low-value facts when admission control is on', async () => {
    const memory = engine();
    const lowValue = { content: 'ok then', category: 'events', confidence: 0.2 };
    const first = await memory.save([lowValue], { admission: { enabled: true } });
    expect(first.mode.admission).toBe('on');
    expect(first.outcomes[0]?.action).toBe('created');
    expect(memory.list()[0]?.tier).toBe('peripheral');
    const repeated = await memory.save([lowValue], { dedup: false, admission: { enabled: true } });
    expect(repeated.outcomes[0]?.action).toBe('rejected');
    const ungated = await memory.save([lowValue], { dedup: false });
    expect(ungated.outcomes[0]?.action).toBe('created');
  });

  it('extracts fact-like sentences without an LLM and says it used the heuristic', async () => {
    const memory = engine();
    const transcript =
      'user: Hi there.\nassistant: Hello!\nuser: My daughter Mia turns 7 on June 3. I prefer morning meetings.';
    const { extraction, report } = await memory.extractAndSave(transcript);
    expect(extraction.mode).toBe('heuristic');
    expect(extraction.facts.map((fact) => fact.content)).toEqual([
      'My daughter Mia turns 7 on June 3.',
      'I prefer morning meetings.',
    ]);
    expect(report.outcomes.every((outcome) => outcome.action === 'created')).toBe(true);
    expect(memory.list().map((item) => item.source)).toEqual(['flush', 'flush']);
  });
});
