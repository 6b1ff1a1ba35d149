import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerAnswers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';
import { waitUntil } from './support/wait-until.js';

/**
 * Durable subagents (issue 23): the host is killed while a subagent of the researcher runs; after
 * `openlegion start` the new agent (same /data) runs the subagent again, and its answer reaches the
 * researcher's conversation as one message in its lane (`POST /mesh/self/inbox`, keyed by the run).
 */
const haveDocker = await dockerAnswers();
if (process.env.OPENLEGION_REQUIRE_DOCKER === '1' && !haveDocker) {
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');
}
const runtime = haveDocker ? 'docker' : 'process';

type Body = { messages: { role: string; content: unknown }[] };
const lastMessage = (body: unknown) => {
  const content = (body as Body).messages.at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
};

const script = {
  rules: [
    {
      match: { last_message: 'count the stars in the background' },
      reply: { tool_calls: [{ name: 'spawn_subagent', arguments: { task: 'Count the stars slowly.' } }] },
    },
    {
      match: { tool_result: 'collect its answer with subagent_result' },
      reply: { text: 'A helper is counting; its answer will come to me.' },
    },
    // The researcher reading the answer that came back after the restart (before the child's
    // rules: the message names the child's task too).
    { match: { last_message: 'Your subagent sub-' }, reply: { text: 'The helper counted 42 stars.' } },
    // The child: its first call outlives the host (the host is killed meanwhile); the re-run answers.
    {
      match: { last_message: 'Count the stars slowly' },
      times: 1,
      reply: { text: 'never', delay_ms: 120_000 },
    },
    { match: { last_message: 'Count the stars slowly' }, reply: { text: 'There are 42 stars.' } },
  ],
};

describe(`a subagent across a host crash (${runtime})`, () => {
  let llm: FakeLlm;
  let mesh: E2eMesh;
  const env = { E2E_PROVIDER_KEY: 'sk-e2e-provider-key-durable' };
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env });
  const requestsWith = (text: string) =>
    llm.requests.filter((request) => lastMessage(request.body).includes(text));

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    mesh = await writeMesh({
      prefix: `e2e-durable-${runtime.slice(0, 4)}`,
      providerUrl: llm.url,
      runtime,
      agents: ['researcher'],
    });
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await cli('stop');
    await llm?.close();
    if (runtime === 'docker') await removeMesh(mesh.name);
  });

  it("re-runs the subagent after the host restarts and delivers its answer to the researcher's conversation once", async () => {
    const sent = await cli('send', 'researcher', 'count the stars in the background');
    expect(sent.stdout, sent.stderr).toContain('A helper is counting; its answer will come to me.');
    await waitUntil(() => requestsWith('Count the stars slowly').length > 0, "the child's first LLM call");

    const { pid } = JSON.parse((await cli('status', '--json')).stdout) as { pid: number };
    process.kill(pid, 'SIGKILL');
    expect((await cli('stop')).code).toBe(0); // removes what the killed host left
    const restart = await cli('start', '--detach');
    expect(restart.code, restart.stdout + restart.stderr).toBe(0);

    await waitUntil(
      () => requestsWith('Your subagent sub-').length > 0,
      "the subagent's answer reaching the researcher",
      120_000,
    );
    const rerun = requestsWith('Count the stars slowly').find((request) =>
      lastMessage(request.body).includes('interrupted by an agent restart and is running again, attempt 2'),
    );
    expect(rerun).toBeDefined();
    const delivered = requestsWith('Your subagent sub-')[0];
    expect(lastMessage(delivered?.body)).toContain('There are 42 stars.');
    // It came into the conversation that spawned it: that turn's message is in its history.
    expect(JSON.stringify((delivered?.body as Body | undefined)?.messages)).toContain(
      'count the stars in the background',
    );

    // Once: one lane item carries it, and it ran to its answer.
    await waitUntil(
      async () =>
        (await fetchLaneItems(mesh)).some(
          (item) => item.message.startsWith('Your subagent sub-') && item.state === 'done',
        ),
      'the lane item of the answer done',
      30_000,
    );
    const items = (await fetchLaneItems(mesh)).filter((item) =>
      item.message.startsWith('Your subagent sub-'),
    );
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      agent: 'researcher',
      source: 'agent',
      resultText: 'The helper counted 42 stars.',
    });
    expect(requestsWith('Your subagent sub-')).toHaveLength(1);
    const listed = await cli('subagents', 'researcher');
    expect(listed.stdout, listed.stderr).toMatch(/sub-[0-9a-f]{8}.*done/);
  }, 300_000);
});

/** The host's lane items (`GET /api/lanes`), with the operator token from the data dir. */
async function fetchLaneItems(
  mesh: E2eMesh,
): Promise<
  Array<{ agent: string; source: string; message: string; state: string; resultText: string | null }>
> {
  const token = (await readFile(path.join(mesh.dataDir, 'operator-token'), 'utf8')).trim();
  const response = await fetch(`http://127.0.0.1:${mesh.port}/api/lanes?limit=500`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return (
    (await response.json()) as {
      items: Array<{
        agent: string;
        source: string;
        message: string;
        state: string;
        resultText: string | null;
      }>;
    }
  ).items;
}
