import { z } from 'zod';

/** Events an agent streams from `POST /chat` (SSE `event:` name = `type`). */
export const chatEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text_delta'), text: z.string() }),
  z.object({
    type: z.literal('tool_start'),
    id: z.string(),
    name: z.string(),
    input: z.unknown(),
  }),
  z.object({ type: z.literal('tool_result'), id: z.string(), output: z.unknown(), is_error: z.boolean() }),
  z.object({
    type: z.literal('usage'),
    model: z.string(),
    prompt_tokens: z.number().int().nonnegative(),
    completion_tokens: z.number().int().nonnegative(),
  }),
  z.object({ type: z.literal('notice'), message: z.string() }),
  z.object({ type: z.literal('done'), conversation_id: z.string(), text: z.string() }),
  z.object({
    type: z.literal('error'),
    code: z.string(),
    message: z.string(),
    retryable: z.boolean(),
  }),
]);
export type ChatEvent = z.infer<typeof chatEventSchema>;
export type ChatEventType = ChatEvent['type'];

/** Serialise one event as an SSE frame. */
export function formatSseEvent(event: ChatEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
