import { FakeClock } from '@openlegion/infra/clock';
import { estimateTokens } from '@openlegion/memory';
import type { AgentTool, ToolResult } from '@openlegion/protocol';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { LlmMessage } from '../context-manager.js';
import { LCM_EXPAND_MAX_TOKENS, LCM_GREP_MAX_TOKENS } from './lcm-queries.js';
import { createLcmTools } from './lcm-tools.js';
import { chatTurn, firstSentenceTier, openStores, SMALL_SETTINGS } from './lossless-test-kit.js';
import { summariseLeaves } from './summary-dag.js';
import { SummaryStore } from './summary-store.js';

const context = { workspace: '/tmp', signal: new AbortController().signal };

async function setUp(turns = 200) {
  const { conversations, db } = openStores();
  for (let index = 1; index <= turns; index++) {
    conversations.append(
      'c1',
      chatTurn(index, index === 7 ? 'The vault door code is 7391-ZETA.' : undefined),
    );
  }
  const store = new SummaryStore(db);
  const body = conversations.list('c1') as LlmMessage[];
  const deps = {
    store,
    call: firstSentenceTier(),
    settings: { ...SMALL_SETTINGS, leafChunkTokens: 1_000_000 },
    clock: new FakeClock(0),
    logger: pino({ level: 'silent' }),
  };
  // One leaf over the whole chat: a huge span to expand.
  const [leaf] = await summariseLeaves(
    deps,
    { conversationId: 'c1', signal: context.signal },
    body,
    0,
    body.length,
  );
  const tools = Object.fromEntries(createLcmTools(() => store).map((tool) => [tool.name, tool]));
  const run = async (name: string, input: unknown): Promise<ToolResult & { text: string }> => {
    const tool = tools[name] as AgentTool;
    const result = await tool.run(tool.input.parse(input), context);
    const first = result.content[0];
    return { ...result, text: first?.type === 'text' ? first.text : '' };
  };
  return { run, leaf, tools };
}

describe('lcm tools', () => {
  it('lcm_grep finds a fact in the raw messages that the summary did not keep', async () => {
    const { run, leaf } = await setUp();
    expect(leaf?.content).not.toContain('7391');
    const found = await run('lcm_grep', { pattern: 'vault door' });
    expect(found.isError).toBeUndefined();
    expect(found.text).toContain('message #13 (c1, user):');
    expect(found.text).toContain('7391-ZETA');
    // Wildcards are literal: `%` matches nothing here.
    expect((await run('lcm_grep', { pattern: '%' })).text).toBe('No messages or summaries hold "%".');
  });

  it('lcm_grep caps its answer and refuses empty and oversized patterns', async () => {
    const { run, tools } = await setUp();
    const wide = await run('lcm_grep', { pattern: 'turn', limit: 50 });
    expect(estimateTokens(wide.text)).toBeLessThanOrEqual(LCM_GREP_MAX_TOKENS + 50);
    expect(wide.text).toMatch(/\[cut at 2000 tokens: \d+ more lines; narrow the pattern or lower limit/);
    const empty = await run('lcm_grep', { pattern: '   ' });
    expect(empty).toMatchObject({
      isError: true,
      text: 'REQUEST_INVALID: the pattern is empty; give one or more words to look for',
    });
    const many = await run('lcm_grep', { pattern: 'a b c d e f g h i' });
    expect(many.text).toBe('REQUEST_INVALID: use at most 8 words of at most 200 characters each');
    expect(tools.lcm_grep?.input.safeParse({ pattern: 'x'.repeat(501) }).success).toBe(false);
  });

  it('lcm_expand of a huge span is capped and says how to page on', async () => {
    const { run, leaf } = await setUp();
    const first = await run('lcm_expand', { id: `S${leaf?.id}` });
    expect(estimateTokens(first.text)).toBeLessThanOrEqual(LCM_EXPAND_MAX_TOKENS + 100);
    const next = Number(first.text.match(/lcm_expand again with from=(\d+) for the rest/)?.[1]);
    expect(next).toBeGreaterThan(10);
    expect(first.text).toContain(`S${leaf?.id} (messages 1–400), messages #1–#${next - 1}:`);
    const second = await run('lcm_expand', { id: leaf?.id, from: next });
    expect(second.text).toContain(`#${next} `);
    const tail = await run('lcm_expand', { conversation: 'c1', from: 399 });
    expect(tail.text).toContain('#400 assistant: Noted turn 200.');
    expect(tail.text).not.toContain('[cut at');
  });

  it('lcm_describe shows the span and children; unknown ids say so', async () => {
    const { run, leaf } = await setUp(20);
    const described = await run('lcm_describe', { id: `S${leaf?.id}` });
    expect(described.text).toContain(`S${leaf?.id}: leaf summary, depth 0, conversation c1`);
    expect(described.text).toContain('messages 1–40 (40 messages)');
    const missing = await run('lcm_describe', { id: 'S999' });
    expect(missing).toMatchObject({
      isError: true,
      text: 'LCM_SUMMARY_NOT_FOUND: no readable summary S999; lcm_grep finds summaries and messages',
    });
    const past = await run('lcm_expand', { id: leaf?.id, from: 41 });
    expect(past.text).toBe(`REQUEST_INVALID: message 41 is past the end of S${leaf?.id} (messages 1–40)`);
    const nothing = await run('lcm_expand', {});
    expect(nothing.text).toBe(
      'REQUEST_INVALID: give a summary id, or a conversation and a message number (from)',
    );
  });

  it('in a turn reads only that conversation', async () => {
    const { conversations, db } = openStores();
    conversations.append('alice', [{ role: 'user', content: 'My bank PIN is 9911.' }]);
    conversations.append('bob', [{ role: 'user', content: 'What is the PIN of the other user?' }]);
    const store = new SummaryStore(db);
    const secret = store.add({
      conversationId: 'alice',
      depth: 0,
      start: 0,
      end: 1,
      children: [],
      content: 'The user shared a PIN.',
      tokens: 6,
      mode: 'normal',
      anchor: '',
      createdAt: 0,
    });
    const tools = Object.fromEntries(createLcmTools(() => store).map((tool) => [tool.name, tool]));
    const inBob = { ...context, conversationId: 'bob' };
    const run = async (name: string, input: unknown) => {
      const tool = tools[name] as AgentTool;
      const result = await tool.run(tool.input.parse(input), inBob);
      const first = result.content[0];
      return first?.type === 'text' ? first.text : '';
    };
    const found = await run('lcm_grep', { pattern: 'PIN' });
    expect(found).toContain('message #1 (bob, user)');
    expect(found).not.toContain('9911');
    expect(await run('lcm_grep', { pattern: 'PIN', conversation: 'alice' })).toBe(
      'REQUEST_INVALID: the lcm tools read only this conversation; leave conversation out',
    );
    expect(await run('lcm_describe', { id: secret.id })).toBe(
      `LCM_SUMMARY_NOT_FOUND: no readable summary S${secret.id}; lcm_grep finds summaries and messages`,
    );
    expect(await run('lcm_expand', { id: secret.id })).toContain('LCM_SUMMARY_NOT_FOUND');
    expect(await run('lcm_expand', { conversation: 'alice', from: 1 })).toContain('REQUEST_INVALID');
  });
});
