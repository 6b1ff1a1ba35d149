import { z } from 'zod';
import { globPatternSchema, topicPatternSchema } from './pattern-bounds.js';

/** Blackboard keys: 1–256 printable characters, not starting with `/`. */
export const blackboardKeySchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^/\p{C}][^\p{C}]*$/u, 'a key is printable text that does not start with "/"');

/** One blackboard entry as the mesh API returns it. */
export const blackboardEntrySchema = z.object({
  key: z.string(),
  value: z.unknown(),
  /** 1 for the first write, one more for each write after. */
  version: z.number().int(),
  updated_by: z.string(),
  updated_at: z.number(),
  /** When the entry vanishes (ms since the epoch); null when it lasts. */
  expires_at: z.number().nullable(),
});
export type BlackboardEntry = z.infer<typeof blackboardEntrySchema>;

/** `PUT /mesh/blackboard/entries/:key`. `if_version: 0` means "only if the key does not exist". */
export const blackboardPutSchema = z
  .object({
    /** Any JSON (the body was parsed as JSON, so it is). */
    value: z.unknown().refine((value) => value !== undefined, 'value: required'),
    if_version: z.number().int().min(0).optional(),
    ttl_s: z.number().int().positive().max(31_536_000).optional(),
  })
  .strict();
export type BlackboardPut = z.infer<typeof blackboardPutSchema>;

/** `GET /mesh/blackboard/watch?pattern=`: changes to keys matching a glob (bounded; default every key). */
export const blackboardWatchQuerySchema = z.object({ pattern: globPatternSchema.default('*') });

/** A change the blackboard's watchers see (SSE event `put` or `delete`). */
export interface BlackboardChange {
  kind: 'put' | 'delete';
  key: string;
  version: number;
  by: string;
  at: number;
  /** The new entry for `put`. */
  entry?: BlackboardEntry;
}

/** Dot-separated topics: `research.done`, `tasks.new.urgent`. */
export const topicSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'a topic is dot-separated words (letters, digits, _ and -)');

/** `POST /mesh/pubsub/publish`. */
export const publishRequestSchema = z
  .object({
    topic: topicSchema,
    payload: z.unknown().refine((value) => value !== undefined, 'payload: required'),
  })
  .strict();

/** One published event as subscribers receive it. */
export const meshEventSchema = z.object({
  /** Increases with each event: a subscriber's cursor. */
  id: z.number().int(),
  topic: z.string(),
  payload: z.unknown(),
  published_by: z.string(),
  published_at: z.number(),
  trace_id: z.string().nullable(),
});
export type MeshEvent = z.infer<typeof meshEventSchema>;

/** `POST /mesh/pubsub/subscriptions`: a durable subscription to topics matching `pattern` (a topic pattern, bounded). */
export const subscribeRequestSchema = z
  .object({
    pattern: topicPatternSchema,
    /** `stream`: read over SSE and ack; `lane`: each event wakes the agent as a message. */
    delivery: z.enum(['stream', 'lane']).default('stream'),
  })
  .strict();

/** A durable subscription as the host answers it (`POST`/`GET /mesh/pubsub/subscriptions`). */
export const subscriptionSchema = z.object({
  id: z.number().int(),
  agent: z.string(),
  pattern: z.string(),
  delivery: z.enum(['stream', 'lane']),
  /** The last event acknowledged (or handed to the lane). */
  cursor: z.number().int(),
  created_at: z.number(),
});
export type SubscriptionInfo = z.infer<typeof subscriptionSchema>;

/** Answers of the pub/sub routes: a publish, the event list, the subscription list. */
export const publishAnswerSchema = z.object({ event: meshEventSchema });
export const pubsubEventsAnswerSchema = z.object({ events: z.array(meshEventSchema) });
export const subscriptionsAnswerSchema = z.object({ subscriptions: z.array(subscriptionSchema) });

/** `GET /api/pubsub/events`: the newest events, optionally only topics matching `topic` (a topic pattern, bounded). */
export const pubsubEventsQuerySchema = z.object({
  topic: topicPatternSchema.optional(),
  limit: z.coerce.number().int().min(1).max(1_000).default(50),
});

/** Where an agent posts a message to its own lane (a subagent's answer its turn stopped waiting for). */
export const SELF_INBOX_MESH_PATH = '/mesh/self/inbox';

/**
 * `POST /mesh/self/inbox`: a message into the caller's own lane, once per `key` (the host drops a
 * key it has seen: a delivery repeated after a crash is not a second turn).
 */
export const selfInboxMessageSchema = z
  .object({
    /** The sender's id for this message (a subagent run id); the host scopes it to the agent. */
    key: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'letters, digits, . _ : - (at most 128)'),
    message: z.string().min(1).max(100_000),
    /** The conversation the turn runs in: the one that spawned the subagent. */
    conversation_id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}$/, 'letters, digits, . _ : @ - (at most 200)')
      .default('default'),
  })
  .strict();
export type SelfInboxMessage = z.infer<typeof selfInboxMessageSchema>;

/** The answer: the lane item, and whether this key was seen before (`existing`: nothing new queued). */
export const selfInboxAnswerSchema = z.object({
  item_id: z.number().int(),
  trace_id: z.string(),
  outcome: z.enum(['queued', 'existing']),
});

/** `POST /mesh/messages`: to another agent's lane; `ask` waits for its answer. */
export const agentMessageSchema = z
  .object({
    to: z.string().min(1),
    message: z.string().min(1).max(100_000),
    mode: z.enum(['send', 'ask']).default('send'),
    /** For `ask`: how long to wait for the answer (default 120 s). */
    timeout_s: z.number().int().positive().max(3_600).optional(),
  })
  .strict();
