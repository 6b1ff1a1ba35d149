import { createLocalEmbedder, defaultScopes, MemoryEngine } from '@openlegion/memory';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryRecall, withRecallBlock } from './memory-recall.js';

const engines: MemoryEngine[] = [];
afterEach(() => {
  for (const engine of engines.splice(0)) engine.close();
});

async function engineWith(facts: { content: string; source?: 'tool' | 'flush'; scope?: string }[]) {
  const engine = MemoryEngine.open({
    file: ':memory:',
    embedder: createLocalEmbedder(),
    defaultScopes: defaultScopes('a'),
  });
  engines.push(engine);
  await engine.save(facts.map((fact) => ({ category: 'entities', source: 'tool' as const, ...fact })));
  return engine;
}

const recallOf = (engine: MemoryEngine, recallChars = 2_000) =>
  createMemoryRecall({
    memory: () => engine,
    recallChars,
    ownScope: 'agent:a',
    logger: pino({ level: 'silent' }),
  });

const base = { conversationId: 'c', systemPrompt: 'You are a.', history: [] };

describe('createMemoryRecall', () => {
  it('recalls the memories relevant to the message, best first, and measures the block', async () => {
    const engine = await engineWith([
      { content: 'The deploy key for staging rotates every Monday.' },
      { content: 'Ana prefers green tea in the afternoon.' },
    ]);
    const recall = await recallOf(engine).recall({
      ...base,
      message: 'when does the staging deploy key rotate?',
    });
    expect(recall.memories[0]?.id).toBe(1);
    expect(recall.text).toContain('rotates every Monday');
    expect(recall.chars).toBe(recall.text.length);
    expect(recall.tokens).toBeGreaterThan(10);
    expect(recall.tokens).toBeLessThan(recall.chars);
  });

  it('after a restart (no view known) does not repeat a memory recalled into the stored history', async () => {
    const engine = await engineWith([{ content: 'The deploy key for staging rotates every Monday.' }]);
    const first = await recallOf(engine).recall({ ...base, message: 'staging deploy key?' });
    const history = [
      { role: 'user' as const, content: withRecallBlock('staging deploy key?', first) },
      { role: 'assistant' as const, content: 'Mondays.' },
    ];
    const again = await recallOf(engine).recall({
      ...base,
      history,
      message: 'and the staging deploy key again?',
    });
    expect(again).toMatchObject({ text: '', memories: [], held: 1 });
  });

  it('re-injects a memory that is in the stored history but no longer in the last view', async () => {
    const engine = await engineWith([{ content: 'The deploy key for staging rotates every Monday.' }]);
    const recall = recallOf(engine);
    const first = await recall.recall({ ...base, message: 'staging deploy key?' });
    const history = [
      { role: 'user' as const, content: withRecallBlock('staging deploy key?', first) },
      { role: 'assistant' as const, content: 'Mondays.' },
      { role: 'user' as const, content: 'thanks' },
      { role: 'assistant' as const, content: 'welcome' },
      { role: 'user' as const, content: 'bye' },
      { role: 'assistant' as const, content: 'bye' },
    ];
    // Compaction summarised the first turns: the view holds a summary and the last turn only.
    recall.views.remember('c', [
      { role: 'system', content: 'You are a.\n\nConversation so far: deploy questions.' },
      ...history.slice(-2),
    ]);
    const again = await recall.recall({ ...base, history, message: 'the staging deploy key?' });
    expect(again.memories.map((memory) => memory.id)).toEqual([1]);
  });

  it('leaves out what the system prompt already shows (MEMORY.md)', async () => {
    const engine = await engineWith([{ content: 'The deploy key for staging rotates every Monday.' }]);
    const recall = await recallOf(engine).recall({
      ...base,
      systemPrompt: '# Your notes (MEMORY.md)\n\n- The deploy key for staging rotates every Monday.',
      message: 'staging deploy key?',
    });
    expect(recall).toMatchObject({ text: '', held: 1 });
  });

  it('fences a fact extracted from a conversation', async () => {
    const engine = await engineWith([
      { content: 'The deploy key for staging rotates every Monday.', source: 'flush' },
    ]);
    const recall = await recallOf(engine).recall({ ...base, message: 'staging deploy key?' });
    expect(recall.text).toContain('<untrusted source="memory saved from conversations or by other agents">');
    expect(recall.memories).toMatchObject([{ untrusted: true, source: 'flush' }]);
  });

  it('turns a store error into a logged recall error, never a throw', async () => {
    const recall = createMemoryRecall({
      memory: () => {
        throw new Error('disk I/O error');
      },
      recallChars: 2_000,
      ownScope: 'agent:a',
      logger: pino({ level: 'silent' }),
    });
    expect(await recall.recall({ ...base, message: 'anything' })).toMatchObject({
      text: '',
      error: 'disk I/O error',
    });
  });
});

describe('createMemoryRecall with shared scopes', () => {
  const sharedItem = (id: number, scope: string, content: string) => ({
    id,
    scope,
    category: 'entities',
    content,
    updatedAt: Date.parse('2026-11-20T10:00:00Z'),
    source: 'tool' as const,
    sourceRef: 'scout',
    hostShared: true,
  });

  it('recalls a fact another agent wrote to global, fenced and named by scope and writer', async () => {
    const engine = await engineWith([{ content: 'The deploy key for staging rotates every Monday.' }]);
    const searched: string[] = [];
    const recall = createMemoryRecall({
      memory: () => engine,
      recallChars: 2_000,
      ownScope: 'agent:a',
      shared: {
        scopes: ['global', 'squad:ops'],
        async search(scope, query, limit, traceId) {
          searched.push(`${scope} ${limit} ${traceId}`);
          return scope === 'global'
            ? [sharedItem(1, 'global', `The staging deploy freeze starts Friday (${query.length}).`)]
            : [];
        },
      },
      logger: pino({ level: 'silent' }),
    });
    const turn = await recall.recall({ ...base, traceId: 't1', message: 'staging deploy key?' });
    expect(searched).toEqual(['global 4 t1', 'squad:ops 4 t1']);
    // Own memory 1 and global memory 1 are two memories: the ids are of different stores.
    expect(turn.memories.map((memory) => `${memory.scope}:${memory.id}`)).toEqual(['agent:a:1', 'global:1']);
    expect(turn.text).toContain('[memory global:1 · entities · saved 2026-11-20 · written by agent scout]');
    expect(turn.memories[1]?.untrusted).toBe(true);
  });

  it("goes on with the agent's own memory when the host fails", async () => {
    const engine = await engineWith([{ content: 'The deploy key for staging rotates every Monday.' }]);
    const recall = createMemoryRecall({
      memory: () => engine,
      recallChars: 2_000,
      ownScope: 'agent:a',
      shared: {
        scopes: ['global'],
        search: async () => {
          throw new Error('connect ECONNREFUSED');
        },
      },
      logger: pino({ level: 'silent' }),
    });
    const turn = await recall.recall({ ...base, message: 'staging deploy key?' });
    expect(turn.memories.map((memory) => memory.scope)).toEqual(['agent:a']);
    expect(turn.error).toBeUndefined();
  });
});
