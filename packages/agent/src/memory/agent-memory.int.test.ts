import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalEmbedder, defaultScopes, MemoryEngine, type MemoryStats } from '@openlegion/memory';
import { agentSelfSchema } from '@openlegion/protocol';
import { type FakeLlm, type FakeMeshHost, startFakeLlm, startFakeMeshHost } from '@openlegion/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalAgent } from '../../test/local-agent.js';
import type { RunningAgent } from '../start-agent.js';

const TOKEN = 'agent-memory-token-123456';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const EMBEDDING_MODEL = 'openai/text-embedding-3-small';
const FACTS = [
  { content: 'The user prefers tabs over spaces for indentation.', category: 'preferences' },
  { content: 'Alice met Bob in Paris for the product kickoff.', category: 'events' },
  { content: 'The staging database runs Postgres 16.', category: 'entities' },
];

describe('agent memory embeds through the host', () => {
  let llm: FakeLlm | undefined;
  let host: FakeMeshHost | undefined;
  let dataDir: string;
  let agent: RunningAgent | undefined;
  afterEach(async () => {
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const stop = async () => {
    await agent?.close();
    await host?.close();
    await llm?.close();
    agent = undefined;
    host = undefined;
    llm = undefined;
  };

  /** A store made by an earlier run with the local embedder (or an earlier version of it). */
  const seedLocalStore = async (embedder = createLocalEmbedder()) => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-'));
    const seeded = MemoryEngine.open({
      file: join(dataDir, 'memory.db'),
      embedder,
      defaultScopes: defaultScopes('w'),
    });
    await seeded.save(FACTS);
    seeded.close();
  };

  const start = async (embedder: string, script: Record<string, unknown> = {}) => {
    const self = agentSelfSchema.parse({
      agent: 'w',
      mesh: 'm',
      role: '',
      model: 'scripted/gpt-test',
      soul: '',
      memory: { embedder },
    });
    llm = await startFakeLlm({ script: { models: [self.model], default: { text: 'ok' }, ...script } });
    host = await startFakeMeshHost({ agents: new Map([[TOKEN, self]]), llmUrl: llm.url });
    agent = await startLocalAgent({
      agentId: 'w',
      meshUrl: host.url,
      token: TOKEN,
      dataDir,
      tuning: { memoryBackfillRetryMs: [50], memoryBackfillCheckMs: 50 },
    });
  };

  const stats = async (): Promise<MemoryStats> => {
    const response = await fetch(`${agent?.url}/memory/stats`, { headers: AUTH });
    return (await response.json()) as MemoryStats;
  };
  const search = async (query: string) => {
    const response = await fetch(`${agent?.url}/memory/search`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as { mode: string; hits: { item: { content: string } }[] };
  };
  const embeddingCalls = () => (llm?.requests ?? []).filter((request) => request.path === '/v1/embeddings');

  it('re-embeds a local store with the provider model through /v1/embeddings, in the background, and caches repeated queries', async () => {
    await seedLocalStore();
    await start(EMBEDDING_MODEL);
    await expect
      .poll(async () => (await stats()).embedder, { timeout: 10_000 })
      .toMatchObject({
        active: `openai:${EMBEDDING_MODEL}`,
        recorded: `openai:${EMBEDDING_MODEL}`,
        dimensions: 64,
        reembed: { done: 3, total: 3, pending: 0 },
        error: null,
      });
    const [call] = embeddingCalls();
    expect(call?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(call?.body).toMatchObject({ model: EMBEDDING_MODEL, input: FACTS.map(() => expect.any(String)) });

    const first = await search('which indentation does the user like');
    expect(first.mode).toBe('hybrid');
    const calls = embeddingCalls().length;
    await search('which indentation does the user like');
    expect(embeddingCalls()).toHaveLength(calls); // the query's vector came from the cache
  });

  it('keeps a restarted re-embed going where it stopped, searching lexically meanwhile', async () => {
    await seedLocalStore();
    // The provider is down: every pass fails, the agent answers lexically.
    await start(EMBEDDING_MODEL, { rules: [{ match: { model: EMBEDDING_MODEL }, fail: { status: 503 } }] });
    await expect
      .poll(async () => (await stats()).embedder.error, { timeout: 10_000 })
      .toContain('MEM_EMBEDDER_UNAVAILABLE');
    const meanwhile = await search('Postgres staging');
    expect(meanwhile.hits[0]?.item.content).toContain('Postgres 16');
    await stop();
    await start(EMBEDDING_MODEL); // restarted, the provider back
    await expect
      .poll(async () => (await stats()).embedder, { timeout: 10_000 })
      .toMatchObject({ recorded: `openai:${EMBEDDING_MODEL}`, reembed: { pending: 0 }, error: null });
    const doctor = (await (await fetch(`${agent?.url}/memory/doctor`, { headers: AUTH })).json()) as {
      ok: boolean;
    };
    expect(doctor.ok).toBe(true);
  });

  it('re-embeds a store made by an earlier version of the local embedder, locally and in the background', async () => {
    // Before word bigrams were turned off by default the local embedder had another id.
    const earlier = createLocalEmbedder({ bigramWeight: 0.5 });
    const current = createLocalEmbedder();
    expect(earlier.id).not.toBe(current.id);
    await seedLocalStore(earlier);
    await start('local');
    await expect
      .poll(async () => (await stats()).embedder, { timeout: 10_000 })
      .toMatchObject({
        active: current.id,
        recorded: current.id,
        reembed: { done: 3, total: 3, pending: 0 },
        error: null,
      });
    const result = await search('Paris kickoff');
    expect(result.mode).toBe('hybrid');
    expect(result.hits[0]?.item.content).toContain('Paris');
    expect(embeddingCalls()).toHaveLength(0);
  });

  it('embeds locally, with no call to the host, when the embedder is local', async () => {
    await seedLocalStore();
    await start('local');
    const result = await search('Paris kickoff');
    expect(result.mode).toBe('hybrid');
    expect((await stats()).embedder).toMatchObject({ active: expect.stringMatching(/^local/), error: null });
    expect(embeddingCalls()).toHaveLength(0);
  });
});
