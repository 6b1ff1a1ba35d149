import { type ChatEvent, chatEventSchema } from '@openlegion/protocol';
import { createParser } from 'eventsource-parser';
import type { SseFrame } from './sse-response.js';

/** Read an SSE body as frames, in order, as they arrive (frames split across chunks included). */
export async function* readSseFrames(
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<SseFrame> {
  const queue: SseFrame[] = [];
  const parser = createParser({
    onEvent: (message) =>
      queue.push({
        data: message.data,
        ...(message.event === undefined ? {} : { event: message.event }),
        ...(message.id === undefined ? {} : { id: message.id }),
      }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* queue.splice(0);
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
