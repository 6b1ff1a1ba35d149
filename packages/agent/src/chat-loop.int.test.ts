import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentSelf, agentSelfSchema, type ChatEvent } from '@openlegion/protocol';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChatLoop } from './chat-loop.js';
import { ConversationStore } from './conversation-store.js';
import { loadLlmClient } from './llm-client.js';

const self: AgentSelf = agentSelfSchema.parse({
  agent: 'a',
  mesh: 'm',
  role: 'r',
  model: 'scripted/gpt-test',
  soul: '',
});

describe('createChatLoop (against the fake LLM directly)', () => {
  let llm: FakeLlm;
  let dataDir: string;
  let store: ConversationStore;

  beforeEach(async () => {
    llm = await startFakeLlm({
      script: { models: [self.model], default: { text: 'one two three', chunk_delay_ms: 400 } },
    });
    dataDir = mkdtempSync(join(tmpdir(), 'chat-loop-'));
    store = ConversationStore.open(dataDir);
  });
  afterEach(async () => {
    store.close();
    await llm.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives up a stalled stream with a retryable AGENT_LLM_FAILED error and stores nothing', async () => {
    const client = loadLlmClient({ meshUrl: new URL(llm.url).origin, token: 'chat-loop-test-token' });
    const chat = createChatLoop({
      self,
      store,
      llm: () => client,
      logger: pino({ level: 'silent' }),
      streamIdleTimeoutMs: 100,
    });
    const events: ChatEvent[] = [];
    await chat.runChat(
      { message: 'hi', conversationId: 'c' },
      (event) => events.push(event),
      new AbortController().signal,
    );
    expect([events.at(-1), store.list('c')]).toEqual([
      {
        type: 'error',
        code: 'AGENT_LLM_FAILED',
        message: expect.stringContaining('sent nothing for 100 ms'),
        retryable: true,
      },
      [],
    ]);
  });

  it("sends the turn's trace id with its LLM call, so the host's trace shows the call", async () => {
    const client = loadLlmClient({ meshUrl: new URL(llm.url).origin, token: 'chat-loop-test-token' });
    const chat = createChatLoop({ self, store, llm: () => client, logger: pino({ level: 'silent' }) });
    const events: ChatEvent[] = [];
    await chat.runChat(
      { message: 'hi', conversationId: 'c', traceId: 'trace-chat-1' },
      (event) => events.push(event),
      new AbortController().signal,
    );
    expect(events.at(-1)?.type).toBe('done');
    expect(llm.requests.at(-1)?.headers['x-trace-id']).toBe('trace-chat-1');
  });
});
