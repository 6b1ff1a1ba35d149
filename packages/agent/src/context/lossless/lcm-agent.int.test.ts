import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentSelfSchema } from '@openlegion/protocol';
import { type FakeLlm, type FakeMeshHost, startFakeLlm, startFakeMeshHost } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalAgent } from '../../../test/local-agent.js';
import { postChat } from '../../../test/sse-events.js';
import type { RunningAgent } from '../../start-agent.js';

const TOKEN = 'agent-token-lcm';
/** The default strategy (lossless) on a small window, so a short chat is summarised. */
const self = agentSelfSchema.parse({
  agent: 'quill',
  mesh: 'm',
  role: 'keeps notes',
  model: 'scripted/gpt-test',
  soul: '',
  tools: 'minimal',
  // The 4,000-token window and the padding were sized with every tool schema on each call.
  tool_loading: 'all',
  context: { window_tokens: 4_000 },
});
const EARLY_FACT = 'My locker code is 4417.';
const PADDING = 'The spring release plan has many sections to review in turn. '.repeat(12);

/** The fast tier summarises without the fact: the model can only get it back through the lcm tools. */
const script = {
  models: ['fast', self.model],
  rules: [
    { match: { model: 'fast', last_message_regex: '^Transcript:' }, reply: { text: '{"facts":[]}' } },
    { match: { model: 'fast' }, reply: { text: 'The user reviewed the spring release plan.' } },
    {
      match: { model: self.model, last_message_regex: 'What is my locker code' },
      reply: { tool_calls: [{ name: 'lcm_grep', arguments: { pattern: 'locker code' } }] },
    },
    {
      match: { model: self.model, last_message_regex: 'messages match; lcm_expand' },
      reply: { tool_calls: [{ name: 'lcm_expand', arguments: { id: 'S1' } }] },
    },
    {
      match: { model: self.model, last_message_regex: '#1 user: My locker code is 4417' },
      reply: { text: 'Your locker code is 4417.' },
    },
  ],
  default: { text: 'Noted.' },
};

describe('an agent on the default (lossless) strategy', () => {
  let llm: FakeLlm;
  let host: FakeMeshHost;
  let dataDir: string;
  let agent: RunningAgent;

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    host = await startFakeMeshHost({ agents: new Map([[TOKEN, self]]), llmUrl: llm.url });
    dataDir = mkdtempSync(join(tmpdir(), 'agent-lcm-'));
    agent = await startLocalAgent({ agentId: self.agent, meshUrl: host.url, token: TOKEN, dataDir });
    for (const message of [EARLY_FACT, ...Array.from({ length: 14 }, (_, i) => `Section ${i}: ${PADDING}`)]) {
      const { events } = await postChat(agent.url, TOKEN, { message });
      expect(events.at(-1)?.type).toBe('done');
    }
  });
  afterAll(async () => {
    await agent?.close();
    await host?.close();
    await llm?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gets an early fact back through lcm_grep and lcm_expand after it left the prompt', async () => {
    const mainBodies = () =>
      llm.requests
        .map((request) => request.body as { model?: string; messages?: { role: string; content: unknown }[] })
        .filter((body) => body.model === self.model);
    const beforeQuestion = mainBodies().at(-1);
    expect(JSON.stringify(beforeQuestion?.messages)).not.toContain('4417');

    const { events } = await postChat(agent.url, TOKEN, { message: 'What is my locker code?' });
    const done = events.at(-1);
    const text = done?.type === 'done' ? done.text : '';
    expect(text).toContain('Your locker code is 4417.');
    const last = mainBodies().at(-1);
    const tools = (last?.messages ?? [])
      .filter((message) => message.role === 'tool')
      .map((m) => String(m.content));
    expect(tools.some((content) => content.includes('message #1 ('))).toBe(true);
    expect(tools.some((content) => content.includes('#1 user: My locker code is 4417.'))).toBe(true);
  });
});
