import { formatSseEvent } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { encodeSseFrame, readChatEvents, readSseFrames } from './index.js';

/** A body delivered in arbitrary byte chunks, as a network would. */
function streamOf(text: string, chunkSize: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += chunkSize) controller.enqueue(bytes.slice(i, i + chunkSize));
      controller.close();
    },
  });
}

describe('readChatEvents', () => {
  it('yields typed events in order even when frames are split across chunks', async () => {
    const text =
      formatSseEvent({ type: 'text_delta', text: 'Grüße ' }) +
      formatSseEvent({ type: 'text_delta', text: 'aus Köln' }) +
      formatSseEvent({ type: 'done', conversation_id: 'default', text: 'Grüße aus Köln' });
    const events = [];
    for await (const event of readChatEvents(streamOf(text, 7))) events.push(event);
    expect(events.map((event) => event.type)).toEqual(['text_delta', 'text_delta', 'done']);
    expect(events[2]).toEqual({ type: 'done', conversation_id: 'default', text: 'Grüße aus Köln' });
  });
});

describe('encodeSseFrame', () => {
  it('round-trips event names, ids and multi-line data through readSseFrames', async () => {
    const text =
      encodeSseFrame({ event: 'put', id: '7', data: '{"a":1}\n{"b":2}' }) + encodeSseFrame({ data: 'x' });
    const frames = [];
    for await (const frame of readSseFrames(streamOf(text, 3))) frames.push(frame);
    expect(frames).toEqual([{ event: 'put', id: '7', data: '{"a":1}\n{"b":2}' }, { data: 'x' }]);
  });

  it('ends the read when a frame runs past the bound without ending, instead of buffering it', async () => {
    const endless = (function* () {
      yield new TextEncoder().encode('data: {"type":"text_delta","text":"ok"}\n\n');
      for (;;) yield new TextEncoder().encode('x'.repeat(1_000));
    })();
    const frames: string[] = [];
    await expect(async () => {
      for await (const frame of readSseFrames(endless, { maxFrameChars: 100_000 })) frames.push(frame.data);
    }).rejects.toThrow('an SSE frame ran past 100000 characters without ending');
    expect(frames).toEqual(['{"type":"text_delta","text":"ok"}']);
  });
});
