import { z } from 'zod';
import { OpenLegionError, turnErrorCode } from './errors.js';

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
  /** What automatic recall put into the turn's prompt (once per turn, after it answered, before `done`). */
  z.object({
    type: z.literal('recall'),
    memories: z.array(
      z.object({
        id: z.number().int(),
        category: z.string(),
        scope: z.string(),
        source: z.string(),
        saved_at: z.string(),
        chars: z.number().int().nonnegative(),
        clipped: z.boolean(),
        untrusted: z.boolean(),
      }),
    ),
    chars: z.number().int().nonnegative(),
    tokens: z.number().int().nonnegative(),
    ms: z.number().nonnegative(),
    budget_chars: z.number().int().nonnegative(),
    /** Hits left out because the prompt already holds them. */
    held: z.number().int().nonnegative(),
    /** The memory store failed; the turn went on without recall. */
    error: z.string().optional(),
  }),
  /**
   * A tool call held for the operator (mesh.yaml `agents.NAME.approval`): `waiting` when it starts
   * to wait and again while it waits (so the host's watchdogs see a live turn), then how it ended.
   */
  z.object({
    type: z.literal('approval'),
    id: z.string(),
    tool: z.string(),
    state: z.enum(['waiting', 'approved', 'rejected', 'expired']),
    expires_at: z.number().optional(),
  }),
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

/**
 * The error an `error` chat event stands for, wherever a turn's events are read (host lanes, agent
 * messages, CLI, channels): its code kept when it is a catalogue code (see {@link turnErrorCode}),
 * so `BUDGET_EXCEEDED` raised under a turn reaches the operator as itself, with its own status.
 *
 * @example
 * if (event.type === 'error') throw chatEventError(event, `${agent}: `);
 */
export function chatEventError(event: Extract<ChatEvent, { type: 'error' }>, prefix = ''): OpenLegionError {
  return new OpenLegionError(turnErrorCode(event.code), `${prefix}${event.message}`);
}
