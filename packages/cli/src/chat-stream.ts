import { type ChatEvent, chatEventSchema } from '@openlegion/protocol';
import { createParser } from 'eventsource-parser';

/** Read an agent chat SSE response as typed events, in order, as they arrive. */
export async function* readChatEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ChatEvent> {
  const queue: ChatEvent[] = [];
  const parser = createParser({
    onEvent: (message) => {
      const parsed = chatEventSchema.safeParse(JSON.parse(message.data));
      if (parsed.success) queue.push(parsed.data);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* queue.splice(0);
  }
  yield* queue.splice(0);
}
