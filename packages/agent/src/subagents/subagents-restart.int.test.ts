import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentSelfSchema } from '@openlegion/protocol';
import { type FakeLlm, type FakeMeshHost, startFakeLlm, startFakeMeshHost } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalAgent } from '../../test/local-agent.js';
import { postChat } from '../../test/sse-events.js';
import type { RunningAgent } from '../start-agent.js';

const TOKEN = 'agent-token-durable';
const self = agentSelfSchema.parse({
  agent: 'lead',
  mesh: 'm',
  role: 'leads research',
  model: 'scripted/gpt-test',
  soul: '',
  tools: 'full',
});
type Body = { messages: { role: string; content: unknown }[] };
const lastMessage = (body: unknown) => JSON.stringify((body as Body).messages.at(-1)?.content ?? '');

/**
 * A subagent outlives its agent: the lead's turn spawns it and ends; the agent stops while the
 * child's LLM call is in flight; a new agent process on the same data folder runs the child again
 * and hands its answer to the lead's own lane once, through a host that fails the first try.
 */
const script = {
  rules: [
    {
      match: { last_message: 'start the star count' },
      reply: {
        tool_calls: [
          { name: 'spawn_subagent', arguments: { task: 'Count the stars slowly.', tools: ['write_file'] } },
        ],
      },
    },
    {
      match: { tool_result: 'collect its answer with subagent_result' },
      reply: { text: 'A helper is counting; its answer will come to me.' },
    },
    // The child: it writes its tally, then its next call hangs until the agent stops; the re-run
    // (told of the write) answers.
    {
      match: { last_message: 'Count the stars slowly' },
      times: 1,
      reply: { tool_calls: [{ name: 'write_file', arguments: { path: 'tally.txt', content: '42' } }] },
    },
    { match: { tool_result: 'tally.txt' }, times: 1, reply: { text: 'never', delay_ms: 60_000 } },
    { match: { last_message: 'Count the stars slowly' }, reply: { text: 'There are 42 stars.' } },
  ],
  default: { text: 'ok' },
};

describe('a subagent across an agent restart', () => {
  let llm: FakeLlm;
  let host: FakeMeshHost;
  let dataDir: string;
  const agents: RunningAgent[] = [];
  const start = async () => {
    const agent = await startLocalAgent({
      agentId: self.agent,
      meshUrl: host.url,
      token: TOKEN,
      dataDir,
      tuning: { subagentDeliveryRetryMs: [20] },
    });
    agents.push(agent);
    return agent;
  };
  const inboxPosts = () => host.calls.filter((call) => call.path === '/mesh/self/inbox');

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    host = await startFakeMeshHost({ agents: new Map([[TOKEN, self]]), llmUrl: llm.url });
    dataDir = mkdtempSync(join(tmpdir(), 'agent-subagents-restart-'));
  });
  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await host?.close();
    await llm?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("runs the child again after the restart and delivers its answer to the lead's conversation once", async () => {
    const first = await start();
    const { events } = await postChat(first.url, TOKEN, {
      message: 'start the star count',
      conversation_id: 'chat-stars',
    });
    expect(events.at(-1)).toMatchObject({ text: 'A helper is counting; its answer will come to me.' });
    await vi.waitFor(
      () => expect(llm.requests.some((r) => lastMessage(r.body).includes('tally.txt'))).toBe(true),
      {
        timeout: 10_000,
      },
    );
    await first.close(); // mid-run: the child's second call is in flight
    expect(host.inbox).toEqual([]);

    host.failInbox(1);
    await start();
    await vi.waitFor(() => expect(host.inbox).toHaveLength(1), { timeout: 15_000 });
    expect(host.inbox[0]).toMatchObject({ agent: 'lead', conversation_id: 'chat-stars' });
    expect(host.inbox[0]?.message).toContain('There are 42 stars.');
    expect(host.inbox[0]?.message).toMatch(/^Your subagent sub-[0-9a-f]{8} ended after the turn/);
    // The re-run was told it is one.
    const rerun = llm.requests.filter((r) => lastMessage(r.body).includes('Count the stars')).at(-1);
    expect(lastMessage(rerun?.body)).toContain(
      'interrupted by an agent restart and is running again, attempt 2',
    );
    // ... and went on from the write it had made, rather than starting over.
    expect(lastMessage(rerun?.body)).toContain(
      'Before the restart you had made this tool call; go on from there',
    );
    expect(lastMessage(rerun?.body)).toMatch(/1\. write_file \{\\"path\\":\\"tally.txt\\"/);
    // One 503, one accepted post; a third start sends nothing more.
    expect(inboxPosts()).toHaveLength(2);
    await agents[1]?.close();
    const third = await start();
    await postChat(third.url, TOKEN, { message: 'hello', conversation_id: 'chat-other' });
    expect(inboxPosts()).toHaveLength(2);
    expect(host.inbox).toHaveLength(1);
  });
});
