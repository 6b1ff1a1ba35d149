import { z } from 'zod';

/**
 * What one agent may hold of the host's memory and disk (docs/mesh.md, "Limits"). An agent is
 * untrusted: each of these bounds something it could otherwise grow without end.
 */
export const limitsSchema = z
  .object({
    /**
     * Concurrent SSE streams per agent (blackboard watches and pub/sub streams together). An agent
     * needs one or two; four leaves room for a reconnect racing the old stream.
     */
    streams_per_agent: z.number().int().min(1).max(1_000).default(4),
    /**
     * Bytes per second one agent may write to the blackboard and pub/sub, sustained, with bursts of
     * four seconds' worth; each write counts at least 1 KiB (a durable commit costs a disk sync
     * whatever its size). Agents coordinate through these, they do not store bulk data there: 1 MiB/s
     * is a 64 KiB value sixteen times a second, or a thousand small writes, and it keeps one agent
     * from taking the host's write path (and its event loop) for itself. Past it: 429, retryable.
     */
    write_bytes_per_agent_per_s: z.number().int().min(1_024).max(1_073_741_824).default(1_048_576),
    /**
     * Requests per second one agent may make of the host (its routes and the egress proxy together),
     * sustained, with bursts of four seconds' worth. An agent's loop makes a handful a second; a
     * browser loading a page through the proxy makes a few hundred at once, which the burst holds.
     * Each request costs the host's one event loop before any route's own limit applies, so one
     * agent sending flat out would slow the others and the operator. Past it: 429, retryable.
     */
    requests_per_agent_per_s: z.number().int().min(1).max(1_000_000).default(100),
    /**
     * TCP connections one agent's container may hold open to the host's mesh and egress ports at
     * once (docker runtime: the network lockdown's firewall refuses more with a reset, and new ones
     * past requests_per_agent_per_s, before the host sees them). An agent needs a few for its calls,
     * a browser through the proxy up to 32; a flood of connections would otherwise be accepted and
     * parsed on the host's one event loop.
     */
    connections_per_agent: z.number().int().min(8).max(100_000).default(64),
    /**
     * Concurrent LLM calls per agent (chat, streamed or not, and embeddings). Its loop makes one at
     * a time, tools running side by side (memory search) a few more; 16 leaves room, and each call
     * holds an upstream connection and socket buffers. Past it: 429, which OpenAI clients retry.
     */
    llm_calls_per_agent: z.number().int().min(1).max(1_000).default(16),
    /**
     * Unsent bytes one SSE stream may queue in the host's memory before its reader is dropped as too
     * slow. This is on top of the kernel's socket buffers (often megabytes), which absorb bursts
     * first; 256 KiB is four of the largest frames, more than a reader that keeps up ever leaves.
     */
    stream_backlog_bytes: z
      .number()
      .int()
      .min(64 * 1024)
      .max(256 * 1024 * 1024)
      .default(256 * 1024),
    /** The largest pub/sub payload, as JSON text: the same 64 KiB as a blackboard value. */
    pubsub_payload_bytes: z
      .number()
      .int()
      .min(1_024)
      .max(16 * 1024 * 1024)
      .default(64 * 1024),
    /**
     * Pub/sub retention per agent: the newest events it published are kept, older ones pruned as
     * it publishes. 2,000 outlasts a subscriber's restart; at the payload cap it is at most 125 MiB.
     */
    pubsub_events_per_agent: z.number().int().min(1).max(10_000_000).default(2_000),
    /** Live blackboard keys an agent last wrote. 10,000 is far past what a fleet's shared state needs. */
    blackboard_keys_per_agent: z.number().int().min(1).max(10_000_000).default(10_000),
    /**
     * Bytes of JSON in the live blackboard keys an agent last wrote. 64 MiB: a thousand full-size
     * values, and a hostile agent's share of the disk stays small.
     */
    blackboard_bytes_per_agent: z
      .number()
      .int()
      .min(64 * 1024)
      .max(64 * 1024 * 1024 * 1024)
      .default(64 * 1024 * 1024),
    /**
     * Live items in the host's shared memory scopes (`global`, `squad:NAME`) an agent wrote. 10,000
     * facts (at most 20,000 characters each) is far past what a fleet shares, and keeps one agent's
     * share of every reader's search small.
     */
    shared_memory_items_per_agent: z.number().int().min(1).max(10_000_000).default(10_000),
    /**
     * Blackboard audit rows (puts, deletes) kept per agent; its oldest go as it writes. 100,000 rows
     * of ~100 bytes is ~10 MiB, and a month of history at one write every 30 s.
     */
    audit_rows_per_agent: z.number().int().min(100).max(100_000_000).default(100_000),
    /**
     * Trace hops kept per agent (its calls to the host, its egress decisions); its oldest go as it
     * adds more. 100,000 hops is days of work for a busy agent; traces also expire after 7 days.
     */
    trace_rows_per_agent: z.number().int().min(100).max(100_000_000).default(100_000),
    /**
     * Temporary agents (fleet spawn, docs/mesh.md) one agent may have running at once. Each is a
     * container with its own LLM spend: 3 lets an agent fan a task out without flooding the host.
     */
    temporary_agents_per_agent: z.number().int().min(1).max(100).default(3),
    /**
     * Temporary agents running in the whole fleet at once (agents' and cron's spawns together): 8
     * containers beside the fleet's own fit a small machine.
     */
    temporary_agents: z.number().int().min(1).max(1_000).default(8),
    /** A temporary agent's time to live when the spawn does not say: ten minutes of work. */
    temporary_agent_ttl_s: z.number().int().min(10).max(86_400).default(600),
    /** The longest TTL a spawn may ask for: an hour, so a forgotten agent does not run all day. */
    temporary_agent_max_ttl_s: z.number().int().min(10).max(86_400).default(3_600),
  })
  .strict()
  // A stream must hold a few of the largest frames it can carry, or every reader would be dropped.
  .refine((limits) => limits.stream_backlog_bytes >= 4 * Math.max(limits.pubsub_payload_bytes, 64 * 1024), {
    path: ['stream_backlog_bytes'],
    message: 'must be at least 4 times pubsub_payload_bytes (and 256 KiB): a stream carries whole payloads',
  });
