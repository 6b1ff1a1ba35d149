import { describe, expect, it } from 'vitest';
import { chatEventSchema, formatSseEvent } from './chat-events.js';

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
