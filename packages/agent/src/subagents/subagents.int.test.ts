import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentSelfSchema } from '@openlegion/protocol';
import { type FakeLlm, type FakeMeshHost, startFakeLlm, startFakeMeshHost } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalAgent } from '../../test/local-agent.js';
import { postChat } from '../../test/sse-events.js';
import type { RunningAgent } from '../start-agent.js';

const TOKEN = 'agent-token-subagents';
const self = agentSelfSchema.parse({
  agent: 'lead',
  mesh: 'm',
  role: 'leads research',
  model: 'scripted/gpt-test',
  soul: '',
  tools: 'full',
});

type Body = { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] };
const text = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));

/**
 * Subagents in a running agent: the lead spawns two in one round, each a child loop with its own
 * conversation and workspace folder answering its own task; the lead collects both answers and
 * uses them (the manager's bounds: subagent-manager.test.ts).
 */
const script = {
  rules: [
    // The lead.
    {
      match: { last_message: 'plan the beach day' },
      reply: {
        tool_calls: [
          { name: 'spawn_subagent', arguments: { task: 'Find the high tide time for Porto tomorrow.' } },
          {
            name: 'spawn_subagent',
            arguments: { task: 'Find the moon phase tomorrow.', role: 'an astronomer' },
          },
        ],
      },
    },
    {
      match: { tool_result: 'The moon is waxing gibbous.' },
      reply: { text: 'Go at 06:12 under a waxing gibbous moon.' },
    },
    {
      match: { tool_result: 'collect its answer with subagent_result' },
      reply: { tool_calls: [{ name: 'subagent_result', arguments: { wait_s: 30 } }] },
    },
    // The children: each answers its own task (their prompt holds only it). After the lead's
    // rules: the lead's collected answers name the tasks too.
    { match: { last_message: 'Find the high tide time' }, reply: { text: 'High tide is at 06:12.' } },
    { match: { last_message: 'Find the moon phase' }, reply: { text: 'The moon is waxing gibbous.' } },
  ],
  default: { text: 'ok' },
};

describe('subagents in a running agent', () => {
  let llm: FakeLlm;
  let host: FakeMeshHost;
  let dataDir: string;
  let agent: RunningAgent;

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    host = await startFakeMeshHost({ agents: new Map([[TOKEN, self]]), llmUrl: llm.url });
    dataDir = mkdtempSync(join(tmpdir(), 'agent-subagents-'));
    agent = await startLocalAgent({ agentId: self.agent, meshUrl: host.url, token: TOKEN, dataDir });
  });
  afterAll(async () => {
    await agent?.close();
    await host?.close();
    await llm?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('spawns two subagents in one round and answers from both', async () => {
    const { events } = await postChat(agent.url, TOKEN, {
      message: 'plan the beach day',
      trace_id: 'trace-beach',
    });
    const done = events.at(-1);
    expect(done?.type === 'done' ? done.text : JSON.stringify(done)).toBe(
      'Go at 06:12 under a waxing gibbous moon.',
    );
    const bodies = llm.requests.map((request) => request.body as Body);
    // Each child's prompt held its own task only, never the lead's conversation.
    const child = bodies.find((body) => text(body.messages.at(-1)?.content).includes('Find the moon phase'));
    expect(JSON.stringify(child?.messages)).not.toContain('plan the beach day');
    expect(JSON.stringify(child?.messages)).toContain('an astronomer');
    // The lead saw both answers, fenced, in one collect.
    const collected = bodies
      .flatMap((body) => body.messages)
      .filter((message) => message.role === 'tool')
      .map((message) => text(message.content))
      .find((content) => content.includes('waxing gibbous'));
    expect(collected).toContain('High tide is at 06:12.');
    expect(collected).toMatch(/sub-[0-9a-f]{8} done \(\d+ tokens\)/);
    expect(collected).toContain('&lt;untrusted source="subagent sub-');
    // Children get the tools they asked for (minimal by default): no files, no spawning of their own
    // beyond what depth allows.
    const childTools = (child?.tools ?? []).map((tool) => tool.function.name);
    expect(childTools).not.toContain('write_file');
    expect(existsSync(join(dataDir, 'workspace', 'subagents'))).toBe(true);
    // Each child's calls carry the lead's trace and its own id, so the trace shows the tree.
    const childCall = llm.requests.find((request) => request.body === child);
    expect(childCall?.headers['x-trace-id']).toBe('trace-beach');
    expect(childCall?.headers['x-subagent']).toMatch(/^sub-[0-9a-f]{8}$/);
    expect(llm.requests[0]?.headers['x-subagent']).toBeUndefined();
  });
});
