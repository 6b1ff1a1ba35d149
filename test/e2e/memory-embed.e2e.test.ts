import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';

/**
 * Memory embedded through the host, from a hardened container: `memory_save` in a turn makes the
 * agent call the host's `/v1/embeddings` (testkit's embedding endpoint behind it), the call is in the
 * usage log (`costs`), `memory stats` names the provider embedder, and saving the same fact again
 * makes no second call (the agent's cache, and the store's own vectors).
 */
const PROVIDER_KEY = 'sk-e2e-provider-key-embed';
const EMBEDDER = 'upstream/text-embedding-test';
const FACT = 'The user prefers tabs over spaces for indentation.';

const script = {
  rules: [
    // memory_save answers "created (item 1): …", then for the same fact "skipped (item 1): …".
    { match: { tool_result: 'skipped (item' }, reply: { text: 'Already known.' } },
    { match: { tool_result: 'created (item' }, reply: { text: 'Saved.' } },
    {
      match: { last_message: 'remember my indentation' },
      reply: { tool_calls: [{ name: 'memory_save', arguments: { content: FACT, category: 'preferences' } }] },
    },
  ],
};

describe('agent memory embeds through the host (docker)', () => {
  let llm: FakeLlm;
  let mesh: E2eMesh;
  const env = { E2E_PROVIDER_KEY: PROVIDER_KEY };
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env });
  const embeddingCalls = () => llm.requests.filter((request) => request.path === '/v1/embeddings');

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    mesh = await writeMesh({
      prefix: 'e2e-embed',
      providerUrl: llm.url,
      runtime: 'docker',
      agents: ['alpha'],
      agentFields: { alpha: `memory: { embedder: ${EMBEDDER} }` },
    });
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
  });

  afterAll(async () => {
    await cli('stop');
    await llm?.close();
    await removeMesh(mesh.name);
  });

  it('embeds a saved fact through /v1/embeddings, logs the call, and does not embed the same fact twice', async () => {
    const sent = await cli('send', 'alpha', 'remember my indentation');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('Saved.');
    const calls = embeddingCalls().length;
    expect(calls).toBeGreaterThan(0);
    expect(embeddingCalls()[0]?.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(embeddingCalls()[0]?.body).toMatchObject({ model: 'text-embedding-test' });

    const stats = JSON.parse((await cli('memory', 'alpha', 'stats')).stdout) as {
      items: number;
      embedder: { active: string; recorded: string; error: string | null };
    };
    expect(stats.items).toBe(1);
    expect(stats.embedder).toMatchObject({
      active: `openai:${EMBEDDER}`,
      recorded: `openai:${EMBEDDER}`,
      error: null,
    });

    const costs = JSON.parse((await cli('costs', '--agent', 'alpha', '--json')).stdout) as {
      today: { model: string; calls: number }[];
    };
    expect(costs.today).toContainEqual(expect.objectContaining({ model: EMBEDDER, calls }));

    const again = await cli('send', 'alpha', 'remember my indentation');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Already known.');
    expect(embeddingCalls()).toHaveLength(calls);
  });
});
