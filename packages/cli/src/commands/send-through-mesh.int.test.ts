import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
import { connectToHost } from '../host-connection.js';
import { runCli } from '../program.js';
import { sendMessage } from './send.js';

/**
 * One `openlegion send` through the whole mesh: the real agent loop calls the real host's LLM
 * proxy, its error becomes the turn's error event, the lane relays it, the operator API answers,
 * and the CLI exits. Each error keeps its code (and status) all the way.
 */
describe('openlegion send through the mesh: errors keep their code end to end', () => {
  let dir: string;
  let meshFile: string;
  let llm: FakeLlm;
  let host: MeshHost;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-send-mesh-'));
    llm = await startFakeLlm({
      script: {
        rules: [
          {
            match: { last_message: 'which model?' },
            fail: { status: 404, message: 'The model `gpt-test` does not exist', code: 'model_not_found' },
          },
        ],
        default: { text: 'fine' },
      },
    });
    const [port, egressPort] = await findFreePorts('127.0.0.1', 2);
    meshFile = path.join(dir, 'mesh.yaml');
    // `broke` may spend a millionth of a dollar: one call (up to 1,000 output tokens at $2/M) cannot fit.
    await writeFile(
      meshFile,
      `mesh: { name: senderr, port: ${port}, egress_port: ${egressPort}, data_dir: data }
runtime: { kind: process }
llm:
  default_model: up/gpt-test
  prices: { up/gpt-test: { input: 1, output: 2, max_output_tokens: 1000 } }
  providers: { up: { kind: openai-compatible, base_url: "http://127.0.0.1:9/v1" } }
agents:
  broke: { budget: { daily_usd: 0.000001 } }
  rich: {}
`,
    );
    host = createMeshHost({
      loaded: await loadMeshConfig(meshFile),
      runtime: 'process',
      logger: createLogger({ level: 'silent' }),
      env: {},
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

  const send = async (agent: string, message: string) => {
    const output = capture();
    const code = await runCli(['node', 'openlegion', 'send', agent, message, '-c', meshFile], output);
    return { code, out: output.stdout(), err: output.stderr() };
  };

  it('answers an agent over its budget with BUDGET_EXCEEDED (402), not AGENT_LLM_FAILED, and exits 1', async () => {
    const sent = await send('broke', 'hello');
    expect(sent.code).toBe(1);
    expect(sent.err).toMatch(/^openlegion: LLM call failed: 402 .*budget/);
    expect(llm.requests).toHaveLength(0);
    // The operator API says the same with its status.
    const token = (await readFile(path.join(dir, 'data', 'operator-token'), 'utf8')).trim();
    const response = await fetch(`${host.status().url}/api/agents/broke/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    });
    expect(response.status).toBe(402);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('BUDGET_EXCEEDED');
  });

  it("answers a provider's 404 for the model as LLM_MODEL_NOT_FOUND, asked once, and exits 1", async () => {
    llm.reset();
    const sent = await send('rich', 'which model?');
    expect(sent.code).toBe(1);
    expect(sent.err).toContain(
      'LLM call failed: 404 provider "up" answered 404: The model `gpt-test` does not exist',
    );
    expect(llm.requests).toHaveLength(1);
    const failure = await sendMessage(await connectToHost(meshFile), 'rich', 'which model?', capture()).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'LLM_MODEL_NOT_FOUND', retryable: false });
  });

  it('still answers an agent within its means', async () => {
    expect(await send('rich', 'hello')).toMatchObject({ code: 0, out: 'fine\n' });
  });
});
