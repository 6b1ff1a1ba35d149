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

/**
 * docs/mesh.md's two-agent example through the whole mesh: the writer subscribes with its own
 * `subscribe` tool, the researcher's `publish` wakes it with the event as a lane message, and the
 * operator sees and drives the same through `openlegion pubsub subscriptions|publish|tail`.
 */
describe('agents that subscribe and publish by tool', () => {
  let dir: string;
  let meshFile: string;
  let llm: FakeLlm;
  let host: MeshHost;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-pubsub-'));
    llm = await startFakeLlm({
      script: {
        rules: [
          {
            match: { role: 'user', last_message: 'listen for research' },
            reply: { tool_calls: [{ name: 'subscribe', arguments: { pattern: 'research.*' } }] },
          },
          {
            match: { role: 'user', last_message: 'announce the tides notes' },
            reply: {
              tool_calls: [
                {
                  name: 'publish',
                  arguments: { topic: 'research.done', payload: { key: 'research/tides' } },
                },
              ],
            },
          },
          {
            match: { last_message: 'Event on topic "research.done"' },
            reply: { text: 'Drafting from research/tides.' },
          },
        ],
        default: { text: 'done' },
      },
    });
    const [port, egressPort] = await findFreePorts('127.0.0.1', 2);
    meshFile = path.join(dir, 'mesh.yaml');
    await writeFile(
      meshFile,
      `mesh: { name: pubsub, port: ${port}, egress_port: ${egressPort}, data_dir: data }
runtime: { kind: process }
llm:
  default_model: up/gpt-test
  providers: { up: { kind: openai-compatible, base_url: "http://127.0.0.1:9/v1" } }
agents:
  researcher: { tools: [publish], permissions: { pubsub: { publish: ["research.*"] } } }
  writer: { tools: [subscribe, subscriptions], permissions: { pubsub: { subscribe: ["research.*"] } } }
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

  const cli = async (...args: string[]) => {
    const output = capture();
    const code = await runCli(['node', 'openlegion', ...args, '-c', meshFile], output);
    return { code, out: output.stdout(), err: output.stderr() };
  };
  const lastUserMessages = () =>
    llm.requests.map((request) => {
      const body = request.body as { messages: { role: string; content: string }[] };
      return body.messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
    });

  it('wakes the writer, subscribed by its own tool, with the event the researcher published', async () => {
    expect(await cli('send', 'writer', 'listen for research')).toMatchObject({ code: 0 });
    const subscriptions = await cli('pubsub', 'subscriptions');
    expect(subscriptions.out).toMatch(/^\d+ {2}writer {2}research\.\* {2}lane {2}cursor 0\n$/);

    expect(await cli('send', 'researcher', 'announce the tides notes')).toMatchObject({ code: 0 });
    // The wake-up is the writer's own lane item: wait for its turn to reach the model.
    const deadline = Date.now() + 10_000;
    while (!lastUserMessages().some((text) => text.includes('Event on topic "research.done"'))) {
      if (Date.now() > deadline) throw new Error('the writer was never woken');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const woken = lastUserMessages().find((text) => text.includes('Event on topic "research.done"'));
    expect(woken).toContain('published by researcher');
    expect(woken).toContain('research/tides');
  });

  it('lets the operator publish and tail events, and names a bad topic', async () => {
    const published = await cli('pubsub', 'publish', 'research.note', '{"n":2}');
    expect(published.out).toMatch(/^published event \d+ on research\.note\n$/);
    const tail = await cli('pubsub', 'tail', 'research.*', '-n', '5');
    const lines = tail.out.trim().split('\n');
    expect(lines.at(-2)).toMatch(/ research\.done {2}researcher {2}\{"key":"research\/tides"\}$/);
    expect(lines.at(-1)).toMatch(/ research\.note {2}operator {2}\{"n":2\}$/);
    const bad = await cli('pubsub', 'publish', 'no spaces allowed', 'x');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('topic "no spaces allowed": a topic is dot-separated words');
  });
});
