import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadMeshConfig } from '@openlegion/host/config';
import { createMeshHost, type MeshHost } from '@openlegion/host/mesh';
import { findFreePorts } from '@openlegion/infra/http';
import { createLogger } from '@openlegion/infra/log';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import { InProcessRuntime } from '../../test/in-process-runtime.js';
import { runCli } from '../program.js';

const PROVIDER_KEY = 'sk-embed-provider-key-77aa';
const EMBEDDING_MODEL = 'up/text-embedding-test';

/**
 * The real agent's memory embeds through the real host: `/v1/embeddings` with the agent's token,
 * the provider reached with the host's key, the call in the usage log (`openlegion costs`), a
 * repeated query served from the agent's cache, and an agent set to `local` making no call at all.
 */
describe('agent memory embeds through the host LLM proxy', () => {
  let dir: string;
  let meshFile: string;
  let llm: FakeLlm;
  let host: MeshHost;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-memory-embed-'));
    llm = await startFakeLlm({ script: { default: { text: 'fine' } } });
    const [port, egressPort] = await findFreePorts('127.0.0.1', 2);
    meshFile = path.join(dir, 'mesh.yaml');
    await writeFile(
      meshFile,
      `mesh: { name: memembed, port: ${port}, egress_port: ${egressPort}, data_dir: data }
runtime: { kind: process }
llm:
  default_model: up/gpt-test
  embedding_model: ${EMBEDDING_MODEL}
  prices: { ${EMBEDDING_MODEL}: { input: 0.02, output: 0 } }
  providers: { up: { kind: openai-compatible, base_url: "http://127.0.0.1:9/v1", api_key: env:EMBED_TEST_KEY } }
agents:
  rememberer: {}
  offline: { memory: { embedder: local } }
`,
    );
    host = createMeshHost({
      loaded: await loadMeshConfig(meshFile),
      runtime: 'process',
      logger: createLogger({ level: 'silent' }),
      env: { EMBED_TEST_KEY: PROVIDER_KEY },
      agentEntry: '/unused',
      agentRuntime: new InProcessRuntime(),
      baseUrlOverrides: { up: llm.url },
    });
    await host.start();
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
    await llm?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => {
    const output = capture();
    const code = await runCli(['node', 'openlegion', ...args, '-c', meshFile], output);
    return { code, out: output.stdout(), err: output.stderr() };
  };
  const embeddingCalls = () => llm.requests.filter((request) => request.path === '/v1/embeddings');

  it('embeds a search through /v1/embeddings, logs its usage, and answers the same query again from the cache', async () => {
    const first = await cli('memory', 'rememberer', 'search', 'indentation', 'preference');
    expect(first.code).toBe(0);
    expect(embeddingCalls()).toHaveLength(1);
    const [call] = embeddingCalls();
    expect(call?.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(call?.body).toMatchObject({ model: 'text-embedding-test', input: ['indentation preference'] });

    const again = await cli('memory', 'rememberer', 'search', 'indentation', 'preference');
    expect(again.code).toBe(0);
    expect(embeddingCalls()).toHaveLength(1);

    const stats = JSON.parse((await cli('memory', 'rememberer', 'stats')).out) as {
      embedder: { active: string; recorded: string; dimensions: number; error: string | null };
    };
    expect(stats.embedder).toMatchObject({
      active: `openai:${EMBEDDING_MODEL}`,
      recorded: `openai:${EMBEDDING_MODEL}`,
      dimensions: 64,
      error: null,
    });

    await expect
      .poll(
        async () => {
          const costs = JSON.parse((await cli('costs', '--json')).out) as {
            today: { agent: string; model: string; calls: number }[];
          };
          return costs.today.filter((row) => row.model === EMBEDDING_MODEL);
        },
        { timeout: 10_000 },
      )
      .toEqual([expect.objectContaining({ agent: 'rememberer', model: EMBEDDING_MODEL, calls: 1 })]);
  });

  it('makes no embedding call for an agent whose memory embedder is local', async () => {
    const before = embeddingCalls().length;
    const result = await cli('memory', 'offline', 'search', 'anything', 'at', 'all');
    expect(result.code).toBe(0);
    expect(embeddingCalls()).toHaveLength(before);
    const stats = JSON.parse((await cli('memory', 'offline', 'stats')).out) as {
      embedder: { active: string };
    };
    expect(stats.embedder.active).toMatch(/^local/);
  });
});
