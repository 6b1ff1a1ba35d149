import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentSelfSchema } from '@openlegion/protocol';
import { type FakeLlm, type FakeMeshHost, startFakeLlm, startFakeMeshHost } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalAgent } from '../test/local-agent.js';
import { postChat } from '../test/sse-events.js';
import type { RunningAgent } from './start-agent.js';

const TOKEN = 'agent-token-context-wiring';
/** A small window, so a short chat goes through a flush and a compaction. */
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

const script = {
  models: ['fast', self.model],
  rules: [
    {
      match: { model: 'fast', last_message_regex: '^Transcript:[\\s\\S]*4417' },
      reply: {
        text: JSON.stringify({
          facts: [{ key: 'locker code', value: "The user's locker code is 4417", category: 'entities' }],
        }),
      },
    },
    { match: { model: 'fast', last_message_regex: '^Transcript:' }, reply: { text: '{"facts":[]}' } },
    // A lossless leaf summary (the default strategy) of a span holding the fact.
    {
      match: { model: 'fast', last_message_regex: '^#1 \\[user\\][\\s\\S]*4417' },
      reply: { text: "The user's locker code is 4417; then the spring release plan, section by section." },
    },
    {
      match: { model: 'fast', last_message_regex: '^Current memory:' },
      reply: {
        text: JSON.stringify({
          user_profile: 'Keeps a locker; code 4417.',
          conversation: 'Reviewing the spring release plan section by section.',
          facts: [],
        }),
      },
    },
  ],
  default: { text: 'Noted.' },
};

describe('the agent keeps a long chat inside its window (real context manager)', () => {
  let llm: FakeLlm;
  let host: FakeMeshHost;
  let dataDir: string;
  let agent: RunningAgent;
  const notices: string[] = [];

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    host = await startFakeMeshHost({ agents: new Map([[TOKEN, self]]), llmUrl: llm.url });
    dataDir = mkdtempSync(join(tmpdir(), 'agent-context-'));
    agent = await startLocalAgent({ agentId: self.agent, meshUrl: host.url, token: TOKEN, dataDir: dataDir });
    for (const message of [EARLY_FACT, ...Array.from({ length: 14 }, (_, i) => `Section ${i}: ${PADDING}`)]) {
      const { events } = await postChat(agent.url, TOKEN, { message });
      for (const event of events) if (event.type === 'notice') notices.push(event.message);
      expect(events.at(-1)?.type).toBe('done');
    }
  });
  afterAll(async () => {
    await agent?.close();
    await host?.close();
    await llm?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const mainCalls = () =>
    llm.requests
      .filter((request) => request.path === '/v1/chat/completions')
      .map((request) => request.body as { model: string; messages: { role: string; content: unknown }[] })
      .filter((body) => body.model === self.model);

  it('flushes the early fact to MEMORY.md on the fast tier before compacting', () => {
    const fastCalls = llm.requests.filter((request) => (request.body as { model?: string }).model === 'fast');
    expect(fastCalls.length).toBeGreaterThan(0);
    expect(readFileSync(join(dataDir, 'workspace', 'MEMORY.md'), 'utf8')).toContain('4417');
  });

  it('stops sending the whole history once the window fills, yet the last prompt still carries the fact', () => {
    const last = mainCalls().at(-1);
    const texts = (last?.messages ?? []).map((message) => JSON.stringify(message.content));
    expect(texts.some((text) => text.includes(EARLY_FACT))).toBe(false);
    expect(texts.join('\n')).toContain('4417');
    // 15 user messages were sent; the compacted prompt holds far fewer.
    expect(last?.messages.filter((message) => message.role === 'user').length).toBeLessThan(10);
    expect(notices.length).toBeGreaterThan(0);
  });
});
