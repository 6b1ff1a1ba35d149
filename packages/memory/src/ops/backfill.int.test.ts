import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '@openlegion/infra/clock';
import { OpenLegionError } from '@openlegion/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Embedder } from '../embed/embedder.js';
import { createLocalEmbedder } from '../embed/local-embedder.js';
import type { ChatLlm } from '../llm/chat-llm.js';
import { MemoryEngine, type MemoryEngineOptions } from '../memory-engine.js';
import { defaultScopes } from '../model/scope.js';

const RANK_ONLY = { minScore: 0, hardMinScore: 0 };
const FACTS = [
  { content: 'The user prefers tabs over spaces for indentation.', category: 'preferences' },
  { content: 'Alice met Bob in Paris for the product kickoff.', category: 'events' },
  { content: 'The deploy failed because the disk was full.', category: 'cases' },
  { content: 'The staging database runs Postgres 16.', category: 'entities' },
  { content: 'Invoices are due on the first Monday of the month.', category: 'events' },
];

/** A stand-in provider: `dimensions`-long vectors from the local embedder, failing on command. */
class ScriptedEmbedder implements Embedder {
  readonly kind = 'remote';
  readonly dimensions = undefined;
  calls = 0;
  /** Calls that succeed before every later one fails (Infinity: never fails). */
  failAfter = Number.POSITIVE_INFINITY;
  private readonly local = createLocalEmbedder();
  constructor(
    readonly id: string,
    public answerDimensions: number,
  ) {}
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls++;
    if (this.calls > this.failAfter)
      throw new OpenLegionError('MEM_EMBEDDER_UNAVAILABLE', 'http://127.0.0.1/v1/embeddings answered 503');
    const vectors = await this.local.embed(texts);
    return vectors.map((vector) => vector.slice(0, this.answerDimensions));
  }
}

let dir: string;
const opened: MemoryEngine[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memory-backfill-'));
});
afterEach(() => {
  for (const memory of opened.splice(0)) memory.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(options: Partial<MemoryEngineOptions> = {}): MemoryEngine {
  const memory = MemoryEngine.open({
    file: join(dir, 'memory.db'),
    clock: new FakeClock(1_000_000),
    defaultScopes: defaultScopes('a'),
    onEmbedderError: 'bm25',
    ...options,
  });
  opened.push(memory);
  return memory;
}

function reopen(memory: MemoryEngine, options: Partial<MemoryEngineOptions>): MemoryEngine {
  memory.close();
  opened.splice(opened.indexOf(memory), 1);
  return open(options);
}

describe('background re-embed (backfill)', () => {
  it('moves a store to a new embedder and dimension in batches, searchable throughout, and resumes after a restart', async () => {
    let memory = open({ embedder: createLocalEmbedder() });
    await memory.save(FACTS);
    const provider = new ScriptedEmbedder('openai:openai/text-embedding-3-small', 32);
    provider.failAfter = 1; // the first batch lands, then the "restart" (a failure) cuts the pass short
    memory = reopen(memory, { embedder: provider });

    expect(memory.stats().embedder).toMatchObject({
      active: 'openai:openai/text-embedding-3-small',
      recorded: expect.stringMatching(/^local/),
      reembed: { done: 0, total: 5, pending: 5, running: false },
    });
    // Nothing re-embedded yet: the query is not embedded (no call) and search is lexical.
    const before = await memory.search({ query: 'indentation tabs', config: RANK_ONLY });
    expect(before.mode).toBe('bm25');
    expect(before.hits[0]?.item.content).toContain('tabs over spaces');
    expect(provider.calls).toBe(0);

    await expect(memory.backfill({ batchSize: 2 })).rejects.toMatchObject({
      code: 'MEM_EMBEDDER_UNAVAILABLE',
    });
    expect(memory.stats().embedder).toMatchObject({
      recorded: 'openai:openai/text-embedding-3-small',
      dimensions: 32,
      reembed: { done: 2, total: 5, pending: 3, running: false },
      error: 'MEM_EMBEDDER_UNAVAILABLE: http://127.0.0.1/v1/embeddings answered 503',
    });
    const doctor = await memory.doctor();
    expect(doctor.checks.find((check) => check.name === 'vectors')).toMatchObject({
      ok: false,
      detail: expect.stringContaining(
        '2 of 5 live items embedded with openai:openai/text-embedding-3-small, 3 found lexically',
      ),
    });
    // Half-way: vectors for some, words for the rest; every fact is still found.
    const midway = await memory.search({ query: 'Postgres staging database', config: RANK_ONLY });
    expect(midway.hits[0]?.item.content).toContain('Postgres 16');

    const restarted = new ScriptedEmbedder('openai:openai/text-embedding-3-small', 32);
    memory = reopen(memory, { embedder: restarted });
    expect(memory.embedProgress()).toMatchObject({ done: 2, pending: 3 });
    const progress: number[] = [];
    await expect(memory.backfill({ batchSize: 2, onBatch: (p) => progress.push(p.done) })).resolves.toEqual({
      embedded: 3,
    });
    expect(progress).toEqual([4, 5]);
    expect(restarted.calls).toBe(2); // only the three missing, not the two already done
    expect(memory.stats().embedder).toMatchObject({ reembed: { pending: 0 }, error: null });
    const after = await memory.search({ query: 'indentation tabs', config: RANK_ONLY });
    expect(after.mode).toBe('hybrid');
    expect((await memory.doctor()).ok).toBe(true);
  });

  it('keeps the agent working when the provider is down: saves without vectors, lexical search, the error in stats and doctor', async () => {
    const provider = new ScriptedEmbedder('openai:openai/text-embedding-3-small', 16);
    provider.failAfter = 0;
    const memory = open({ embedder: provider });
    const report = await memory.save(FACTS.slice(0, 2));
    expect(report.outcomes.map((outcome) => outcome.action)).toEqual(['created', 'created']);
    const result = await memory.search({ query: 'Paris kickoff', config: RANK_ONLY });
    expect(result.mode).toBe('bm25');
    expect(result.hits[0]?.item.content).toContain('Paris');
    expect(memory.stats().embedder.error).toBe(
      'MEM_EMBEDDER_UNAVAILABLE: http://127.0.0.1/v1/embeddings answered 503',
    );
    const doctor = await memory.doctor();
    expect(doctor.ok).toBe(false);
    expect(doctor.checks.find((check) => check.name === 'embedder')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('unreachable: http://127.0.0.1/v1/embeddings answered 503'),
    });
    // The provider comes back: the items saved meanwhile get their vectors.
    provider.failAfter = Number.POSITIVE_INFINITY;
    await expect(memory.backfill()).resolves.toEqual({ embedded: 2 });
    expect(memory.stats().embedder).toMatchObject({ reembed: { done: 2, pending: 0 }, error: null });
  });

  it('refuses a provider answering the wrong dimension, saying which, and keeps what it has', async () => {
    const provider = new ScriptedEmbedder('openai:openai/text-embedding-3-small', 32);
    let memory = open({ embedder: provider });
    await memory.save(FACTS.slice(0, 2));
    expect(memory.stats().embedder).toMatchObject({ dimensions: 32, reembed: { pending: 0 } });
    const shrunk = new ScriptedEmbedder('openai:openai/text-embedding-3-small', 24);
    memory = reopen(memory, { embedder: shrunk });
    await memory.save(FACTS.slice(2, 3));
    const message =
      'memory store was built with openai:openai/text-embedding-3-small (32 dimensions) but the embedder is openai:openai/text-embedding-3-small (24 dimensions); run reembed to rebuild the vectors';
    expect(memory.stats().embedder).toMatchObject({
      dimensions: 32,
      reembed: { done: 2, pending: 1 },
      error: `MEM_EMBEDDING_MISMATCH: ${message}`,
    });
    await expect(memory.backfill()).rejects.toThrow(
      'openai:openai/text-embedding-3-small answered 24-dimension vectors where 32 were expected',
    );
    const doctor = await memory.doctor();
    expect(doctor.checks.find((check) => check.name === 'embedder')).toMatchObject({
      ok: false,
      detail: "openai:openai/text-embedding-3-small answered 24 dimensions but the store's vectors have 32",
    });
    // The old vectors stay: search still finds by meaning what was embedded before, and by words the rest.
    const result = await memory.search({ query: 'disk full deploy', config: RANK_ONLY });
    expect(result.hits[0]?.item.content).toContain('disk was full');
  });
});

describe('LLM paths and admission', () => {
  const llm: ChatLlm = {
    model: 'fast',
    complete: async () => '{"decision":"create","reason":"new"}',
  };

  it('runs dedup on the LLM only when its path is on, and admission when the engine says so', async () => {
    const withLlm = open({ embedder: createLocalEmbedder(), llm, llmPaths: { dedup: true } });
    expect((await withLlm.save(FACTS.slice(0, 1))).mode).toMatchObject({ dedup: 'llm', admission: 'off' });
    // Rerank is the request's choice by default (off unless asked).
    expect((await withLlm.search({ query: 'tabs', config: RANK_ONLY })).rerank).toBe('off');
    const heuristic = reopen(withLlm, {
      embedder: createLocalEmbedder(),
      llm,
      llmPaths: { dedup: false },
      admission: true,
    });
    expect((await heuristic.save(FACTS.slice(1, 2))).mode).toMatchObject({
      dedup: 'heuristic',
      admission: 'on',
    });
    const reranking = reopen(heuristic, {
      embedder: createLocalEmbedder(),
      llm,
      llmPaths: { rerank: 'always' },
    });
    expect((await reranking.search({ query: 'tabs', config: RANK_ONLY })).rerank).not.toBe('off');
    const never = reopen(reranking, { embedder: createLocalEmbedder(), llm, llmPaths: { rerank: 'never' } });
    expect((await never.search({ query: 'tabs', config: { ...RANK_ONLY, rerank: true } })).rerank).toBe(
      'off',
    );
  });
});
