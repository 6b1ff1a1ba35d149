import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAiEmbedder } from '../embed/openai-embedder.js';
import { MemoryEngine } from '../memory-engine.js';
import { createOpenAiChatLlm } from './chat-llm.js';

let llm: FakeLlm | undefined;
const engines: MemoryEngine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) engine.close();
  await llm?.close();
  llm = undefined;
});

async function engineWith(script: string, options: { embedder?: boolean } = {}): Promise<MemoryEngine> {
  llm = await startFakeLlm({ script });
  const connection = { baseUrl: llm.url, token: 'agent-token' };
  const engine = MemoryEngine.open({
    file: ':memory:',
    llm: createOpenAiChatLlm({ ...connection, model: 'gpt-test-mini' }),
    ...(options.embedder
      ? { embedder: createOpenAiEmbedder({ ...connection, model: 'embed-test', dimensions: 32 }) }
      : {}),
  });
  engines.push(engine);
  return engine;
}

const EXTRACTION = JSON.stringify({
  memories: [
    {
      category: 'preferences',
      abstract: 'Prefers Rust',
      overview: 'Likes Rust for tools.',
      content: 'The user prefers Rust for CLI tools.',
    },
    {
      category: 'travel_plans',
      abstract: 'Lisbon in May',
      overview: 'Trip.',
      content: 'Going to Lisbon in May 2026.',
    },
    { category: 'Bad Name', abstract: 'x', content: 'dropped' },
  ],
});

describe('memory with an LLM (scripted OpenAI-compatible server)', () => {
  it('extracts memories with the LLM on the chosen model, creating new categories', async () => {
    const memory = await engineWith(
      `rules:\n  - match: { last_message: "user:" }\n    reply: { text: ${JSON.stringify(EXTRACTION)} }`,
    );
    const { extraction, report } = await memory.extractAndSave('user: I like Rust. Off to Lisbon in May.');
    expect(extraction.mode).toBe('llm');
    expect(extraction.facts.map((fact) => fact.category)).toEqual(['preferences', 'travel_plans']);
    expect(report.mode.dedup).toBe('llm');
    expect(memory.categories().map((category) => category.name)).toContain('travel_plans');
    expect(llm?.requests[0]?.headers.authorization).toBe('Bearer agent-token');
    expect(llm?.requests[0]?.body).toMatchObject({ model: 'gpt-test-mini' });
  });

  it('falls back to the heuristic when the LLM fails, and says why', async () => {
    const memory = await engineWith('rules:\n  - fail: { status: 503, message: overloaded }');
    const { extraction } = await memory.extractAndSave('user: My sister Ines lives in Porto.');
    expect(extraction.mode).toBe('heuristic');
    expect(extraction.fallbackReason).toContain('503');
    expect(extraction.facts.map((fact) => fact.content)).toEqual(['My sister Ines lives in Porto.']);
  });

  it('lets the LLM supersede a versioned fact, keeping the old one as history', async () => {
    const decision = JSON.stringify({ decision: 'supersede', match_index: 0, reason: 'moved' });
    const memory = await engineWith(
      `rules:\n  - match: { last_message: "New memory" }\n    reply: { text: ${JSON.stringify(decision)} }`,
      { embedder: true },
    );
    await memory.save([{ content: 'Bo lives in Lund, Sweden.', category: 'entities' }]);
    const report = await memory.save([{ content: 'Bo lives in Malmo, Sweden.', category: 'entities' }]);
    expect(report.outcomes[0]).toMatchObject({ action: 'superseded', reason: 'llm: moved' });
    const all = memory.list({ includeSuperseded: true });
    expect(all.map((item) => [item.content, item.version, item.supersededBy])).toEqual([
      ['Bo lives in Lund, Sweden.', 1, 2],
      ['Bo lives in Malmo, Sweden.', 2, null],
    ]);
    expect(memory.list()).toHaveLength(1);
  });

  it('holds the LLM to the category rules: an event is never merged', async () => {
    const decision = JSON.stringify({ decision: 'merge', match_index: 0, reason: 'same' });
    const memory = await engineWith(
      `rules:\n  - match: { last_message: "New memory" }\n    reply: { text: ${JSON.stringify(decision)} }`,
      { embedder: true },
    );
    await memory.save([{ content: 'Team offsite in Riga on 3 March.', category: 'events' }]);
    const report = await memory.save([{ content: 'Team offsite in Riga on 4 March.', category: 'events' }]);
    expect(report.outcomes[0]?.action).toBe('created');
  });

  it('reranks with the LLM when asked, and reports it', async () => {
    const scores = JSON.stringify({
      scores: [
        { index: 0, score: 0 },
        { index: 1, score: 1 },
      ],
    });
    const memory = await engineWith(
      `rules:\n  - match: { last_message: "Query:" }\n    reply: { text: ${JSON.stringify(scores)} }`,
    );
    await memory.save([{ content: 'Oak trees live long.' }, { content: 'Oak furniture is heavy.' }], {
      dedup: false,
    });
    const result = await memory.search({
      query: 'oak',
      config: { rerank: true, minScore: 0, hardMinScore: 0 },
    });
    expect(result.rerank).toBe('llm');
    expect(result.hits.map((hit) => hit.item.content)).toEqual([
      'Oak furniture is heavy.',
      'Oak trees live long.',
    ]);
  });

  it('embeds through /v1/embeddings and reports the remote embedder in doctor', async () => {
    const memory = await engineWith('rules: []', { embedder: true });
    await memory.save([{ content: 'Granite is an igneous rock.' }]);
    expect(memory.stats().embedder).toMatchObject({ active: 'openai:embed-test:32', dimensions: 32 });
    const report = await memory.doctor();
    expect(report.checks.find((check) => check.name === 'embedder')).toMatchObject({ ok: true });
    expect(llm?.requests.some((request) => request.path === '/v1/embeddings')).toBe(true);
  });

  it('reports an unreachable embedder clearly', async () => {
    const memory = await engineWith('rules: []');
    await llm?.close();
    const offline = MemoryEngine.open({
      file: ':memory:',
      embedder: createOpenAiEmbedder({ baseUrl: llm?.url ?? '', token: 't', model: 'm', timeoutMs: 2_000 }),
    });
    engines.push(offline);
    await expect(offline.save([{ content: 'x' }])).rejects.toMatchObject({
      code: 'MEM_EMBEDDER_UNAVAILABLE',
    });
    const report = await offline.doctor();
    expect(report.ok).toBe(false);
    expect(report.checks.find((check) => check.name === 'embedder')?.detail).toContain('unreachable');
    llm = undefined;
    expect(memory.modes.llm).toBe('gpt-test-mini');
  });
});
