import { describe, expect, it } from 'vitest';
import type { LlmMessage } from './context-manager.js';
import { clipMiddle, FAST_TIER_INPUT_TOKENS, transcriptChunks, UNREAD_MARKER } from './transcript.js';

const call = (id: string): LlmMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'run_command', arguments: '{"cmd":"ls"}' } }],
});
const result = (id: string, content: string): LlmMessage => ({ role: 'tool', tool_call_id: id, content });

describe('transcriptChunks', () => {
  it('shows tool output clipped to its head and tail, and says how much was left out', () => {
    const [chunk] = transcriptChunks([
      { role: 'user', content: 'list' },
      call('a'),
      result('a', 'x'.repeat(5_000)),
    ]);
    expect(chunk).toContain('[assistant calls] run_command({"cmd":"ls"})');
    expect(chunk).toContain('[… 3800 characters left out …]');
    expect(chunk?.length).toBeLessThan(1_400);
  });

  it('splits a long range into pieces the fast tier can read, never inside a tool round', () => {
    const messages: LlmMessage[] = [];
    for (let round = 0; round < 60; round++) {
      messages.push(
        { role: 'user', content: `step ${round} ${'word '.repeat(1_000)}` },
        call(`c${round}`),
        result(`c${round}`, 'ok'),
      );
    }
    const chunks = transcriptChunks(messages);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.split('\n')[0]).toMatch(/^\[user\] step \d+/);
      expect(chunk.length / 4).toBeLessThan(FAST_TIER_INPUT_TOKENS * 1.2);
    }
  });

  it('puts the not-yet-saved marker before the group holding the first unread message', () => {
    const messages: LlmMessage[] = [
      { role: 'user', content: 'first' },
      call('a'),
      result('a', 'done'),
      { role: 'user', content: 'second' },
    ];
    expect(transcriptChunks(messages, 2)[0]).toBe(
      `[user] first\n${UNREAD_MARKER}\n[assistant calls] run_command({"cmd":"ls"})\n[tool result] done\n[user] second`,
    );
    expect(transcriptChunks(messages)[0]).not.toContain(UNREAD_MARKER);
  });
});

describe('clipMiddle', () => {
  it('leaves short text alone', () => {
    expect(clipMiddle('short', 10)).toBe('short');
  });
});
