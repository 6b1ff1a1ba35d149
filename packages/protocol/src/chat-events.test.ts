import { describe, expect, it } from 'vitest';
import { chatEventError, chatEventSchema, formatSseEvent } from './chat-events.js';

describe('formatSseEvent', () => {
  it('names the SSE event after the event type and carries it as JSON data', () => {
    const frame = formatSseEvent({ type: 'text_delta', text: 'hi\nthere' });
    expect(frame).toBe('event: text_delta\ndata: {"type":"text_delta","text":"hi\\nthere"}\n\n');
  });
});

describe('chatEventSchema', () => {
  it('rejects an event of an unknown type', () => {
    expect(chatEventSchema.safeParse({ type: 'telepathy' }).success).toBe(false);
  });
});

describe('chatEventError', () => {
  it('raises the event as the error of its own code, status and retryability, the message prefixed', () => {
    const error = chatEventError(
      { type: 'error', code: 'BUDGET_EXCEEDED', message: 'over budget', retryable: true },
      'alpha: ',
    );
    expect([error.code, error.status, error.retryable, error.message]).toEqual([
      'BUDGET_EXCEEDED',
      402,
      false,
      'alpha: over budget',
    ]);
  });

  it('raises a code the catalogue does not have as AGENT_LLM_FAILED', () => {
    const error = chatEventError({ type: 'error', code: 'CHAT_FAILED', message: 'x', retryable: false });
    expect([error.code, error.status]).toEqual(['AGENT_LLM_FAILED', 502]);
  });
});
