import { describe, expect, it } from 'vitest';
import { meshConfigSchema } from './mesh-config.js';

const minimal = { llm: { providers: { openai: {} } }, agents: { a: {} } };

describe('mesh.yaml limits', () => {
  it('bounds every agent by default', () => {
    expect(meshConfigSchema.parse(minimal).limits).toEqual({
      streams_per_agent: 4,
      write_bytes_per_agent_per_s: 1024 * 1024,
      requests_per_agent_per_s: 100,
      connections_per_agent: 64,
      llm_calls_per_agent: 16,
      stream_backlog_bytes: 256 * 1024,
      pubsub_payload_bytes: 64 * 1024,
      pubsub_events_per_agent: 2_000,
      blackboard_keys_per_agent: 10_000,
      blackboard_bytes_per_agent: 64 * 1024 * 1024,
      shared_memory_items_per_agent: 10_000,
      audit_rows_per_agent: 100_000,
      trace_rows_per_agent: 100_000,
      temporary_agents_per_agent: 3,
      temporary_agents: 8,
      temporary_agent_ttl_s: 600,
      temporary_agent_max_ttl_s: 3_600,
    });
  });

  it('refuses a field it does not know', () => {
    const result = meshConfigSchema.safeParse({ ...minimal, limits: { streams: 2 } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', path: ['limits'] });
  });

  it('refuses a stream backlog too small for the payloads a stream carries', () => {
    const result = meshConfigSchema.safeParse({
      ...minimal,
      limits: { stream_backlog_bytes: 300_000, pubsub_payload_bytes: 100_000 },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({
      path: ['limits', 'stream_backlog_bytes'],
      message: 'must be at least 4 times pubsub_payload_bytes (and 256 KiB): a stream carries whole payloads',
    });
  });
});
