import { FakeClock } from '@openlegion/infra/clock';
import type { ChatEvent } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import type { ContextRequest, LlmMessage } from '../context-manager.js';
import type { ContextSettings } from '../context-services.js';
import { TokenCounter } from '../token-counter.js';
import { createLosslessManager } from './create-lossless-manager.js';
import {
  captureLogger,
  chatTurn,
  firstSentenceTier,
  openStores,
  SMALL_SETTINGS,
  SYSTEM,
  toolRound,
} from './lossless-test-kit.js';
import { SummaryStore } from './summary-store.js';

const WINDOW = 4_000;
const SETTINGS: ContextSettings = {
  window_tokens: WINDOW,
  flush_at: 0.6,
  compact_at: 0.7,
  wrap_up_at: 0.95,
  strategy: 'lossless',
  keep_turns: 4,
};
const counter = new TokenCounter();
/** An unknown model: counted by the estimate, no tokenizer table to load. */
const MODEL = 'test/unknown-model';

function harness() {
  const stores = openStores();
  const { logger, lines } = captureLogger();
  const call = firstSentenceTier();
  const manager = createLosslessManager({
    db: stores.db,
    settings: SETTINGS,
    lossless: SMALL_SETTINGS,
    call,
    counter,
    clock: new FakeClock(0),
    logger,
  });
  const events: ChatEvent[] = [];
  const request = (conversationId = 'c1'): ContextRequest => ({
    conversationId,
    model: MODEL,
    messages: [SYSTEM, ...(stores.conversations.list(conversationId) as LlmMessage[])],
    emit: (event) => events.push(event),
    signal: new AbortController().signal,
  });
  return { ...stores, manager, call, lines, events, request };
}

describe('the lossless context manager', () => {
  it('keeps every assembled prompt within budget over a long chat, with summaries and a fresh tail', async () => {
    const h = harness();
    let peak = 0;
    for (let index = 1; index <= 300; index++) {
      h.conversations.append('c1', chatTurn(index));
      if (index % 5 === 0) h.conversations.append('c1', toolRound(index));
      const prepared = await h.manager.prepare(h.request());
      peak = Math.max(peak, prepared.promptTokens);
      expect(prepared.promptTokens).toBeLessThan(WINDOW * SMALL_SETTINGS.forceAt);
      // A tool result always follows its call.
      prepared.messages.forEach((message, at) => {
        if (message.role === 'tool') expect(['assistant', 'tool']).toContain(prepared.messages[at - 1]?.role);
      });
    }
    const last = await h.manager.prepare(h.request());
    const system = String(last.messages[0]?.content);
    expect(system).toContain('## Conversation summaries');
    expect(system).toMatch(/\[S\d+ · depth [1-9]/);
    // The fresh tail: the newest messages are sent verbatim.
    expect(last.messages.some((message) => String(message.content).includes('Turn 300 begins here.'))).toBe(
      true,
    );
    expect(new SummaryStore(h.db).all('c1').some((node) => node.depth >= 2)).toBe(true);
    expect(peak).toBeGreaterThan(WINDOW * 0.5);
    expect(
      h.events.some(
        (event) => event.type === 'notice' && /Summarised \d+ older messages/.test(event.message),
      ),
    ).toBe(true);
  });

  it('skips a corrupted summary row with a warning and keeps answering', async () => {
    const h = harness();
    for (let index = 1; index <= 120; index++) h.conversations.append('c1', chatTurn(index));
    await h.manager.prepare(h.request());
    const store = new SummaryStore(h.db);
    const [first, second] = store.active('c1');
    expect(first && second).toBeTruthy();
    h.db.prepare("UPDATE lcm_summaries SET children = 'not json{' WHERE id = ?").run(first?.id);
    h.db.prepare("UPDATE lcm_summaries SET mode = 'bogus', depth = -3 WHERE id = ?").run(second?.id);
    h.conversations.append('c1', chatTurn(121));
    const prepared = await h.manager.prepare(h.request());
    const system = String(prepared.messages[0]?.content);
    expect(system).not.toContain(`[S${first?.id} `);
    expect(system).not.toContain(`[S${second?.id} `);
    expect(prepared.messages.at(-2)?.content).toContain('Turn 121 begins here.');
    const warnings = h.lines.filter(
      (line) => line.level === 40 && line.msg.startsWith('lcm summary row is unreadable'),
    );
    expect(warnings).toHaveLength(2);
  });

  it('starts the DAG over when the conversation was reset and regrown', async () => {
    const h = harness();
    for (let index = 1; index <= 120; index++) h.conversations.append('c1', chatTurn(index));
    await h.manager.prepare(h.request());
    expect(new SummaryStore(h.db).all('c1').length).toBeGreaterThan(0);
    h.db.prepare('DELETE FROM messages WHERE conversation_id = ?').run('c1');
    h.conversations.append('c1', chatTurn(1, 'A new start.'));
    const prepared = await h.manager.prepare(h.request());
    expect(new SummaryStore(h.db).all('c1')).toHaveLength(0);
    expect(String(prepared.messages[0]?.content)).not.toContain('Conversation summaries');
  });

  it('/compact summarises everything outside the fresh tail, and says when there is nothing', async () => {
    const h = harness();
    for (let index = 1; index <= 3; index++) h.conversations.append('c1', chatTurn(index));
    await h.manager.compact(h.request(), 'directive');
    expect(h.events.at(-1)).toEqual({
      type: 'notice',
      message: 'Nothing to compact: the last 8 messages stay as they are.',
    });
    for (let index = 4; index <= 20; index++) h.conversations.append('c1', chatTurn(index));
    const prepared = await h.manager.compact(h.request(), 'directive');
    expect(String(prepared.messages[0]?.content)).toContain(
      'Messages 1–32 of this conversation are summarised',
    );
    expect(prepared.messages).toHaveLength(1 + 8);
  });

  it('after an overflow learns a smaller window and brings the prompt under it', async () => {
    const h = harness();
    for (let index = 1; index <= 40; index++) h.conversations.append('c1', chatTurn(index));
    const before = await h.manager.prepare(h.request());
    expect(before.promptTokens).toBeGreaterThan(1_500);
    // The provider refused this prompt: its window is smaller than the configured 4,000.
    const after = await h.manager.compact(h.request(), 'overflow');
    expect(after.promptTokens).toBeLessThan(before.promptTokens * 0.95 * SMALL_SETTINGS.forceAt);
    expect(h.lines.some((line) => line.msg.startsWith('the model refused a prompt as too long'))).toBe(true);
  });
});
