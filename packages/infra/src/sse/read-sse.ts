import { type ChatEvent, chatEventSchema } from '@openlegion/protocol';
import { createParser } from 'eventsource-parser';
import type { SseFrame } from './sse-response.js';

/**
 * The most characters one frame (or one unfinished line) may hold: far past any chat event or
 * provider chunk, and a sender that never ends its frame cannot grow the reader's memory past it.
 */
export const MAX_SSE_FRAME_CHARS = 16 * 1024 * 1024;

/**
 * Read an SSE body as frames, in order, as they arrive (frames split across chunks included).
 * A frame longer than `maxFrameChars` ends the read with an error.
 */
export async function* readSseFrames(
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  { maxFrameChars = MAX_SSE_FRAME_CHARS }: { maxFrameChars?: number } = {},
): AsyncGenerator<SseFrame> {
  const queue: SseFrame[] = [];
  let tooLong: Error | undefined;
  const parser = createParser({
    maxBufferSize: maxFrameChars,
    onEvent: (message) =>
      queue.push({
        data: message.data,
        ...(message.event === undefined ? {} : { event: message.event }),
        ...(message.id === undefined ? {} : { id: message.id }),
      }),
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded')
        tooLong = new Error(`an SSE frame ran past ${maxFrameChars} characters without ending`, {
          cause: error,
        });
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* queue.splice(0);
    if (tooLong) throw tooLong;
  }
  yield* queue.splice(0);
}

/** Read an agent chat SSE body as typed chat events; frames that are not chat events are skipped. */
export async function* readChatEvents(
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<ChatEvent> {
  for await (const frame of readSseFrames(body)) {
    const parsed = chatEventSchema.safeParse(parseJson(frame.data));
    if (parsed.success) yield parsed.data;
  }
}

/** Parse a whole SSE text (a test's collected body) into chat events. */
export async function parseChatEvents(text: string): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  for await (const event of readChatEvents([new TextEncoder().encode(text)])) events.push(event);
  return events;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
