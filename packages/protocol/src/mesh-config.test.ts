import { describe, expect, it } from 'vitest';
import { meshConfigJsonSchema, meshConfigSchema, resolveModel } from './mesh-config.js';

const full = {
  mesh: { name: 'demo', host: '127.0.0.1', port: 8420, data_dir: '.openlegion' },
  runtime: {
    kind: 'docker',
    image: 'openlegion-agent:latest',
    resources: { memory: '512m', cpus: 1, pids: 256 },
  },
  llm: {
    default_model: 'openai/gpt-4.1-mini',
    tiers: {
      fast: 'openai/gpt-4.1-nano',
      default: 'openai/gpt-4.1-mini',
      complex: 'anthropic/claude-opus-4-1',
    },
    fallbacks: ['anthropic/claude-haiku-4-5', 'openai/gpt-4.1-nano'],
    fallback_strategy: 'cascade',
    embedding_model: 'openai/text-embedding-3-small',
    providers: {
      openai: { api_key: 'vault:OPENAI_API_KEY' },
      anthropic: { api_key: 'vault:ANTHROPIC_API_KEY' },
      local: { kind: 'openai-compatible', base_url: 'http://127.0.0.1:11434/v1' },
    },
  },
  agents: {
    researcher: {
      role: 'Finds and summarises sources',
      model: 'default',
      soul: 'Curious, terse.',
      tools: 'full',
      budget: { daily_usd: 5, monthly_usd: 50 },
      permissions: {
        blackboard: { read: ['research/*'], write: ['research/*'] },
        pubsub: { publish: ['research.*'], subscribe: ['tasks.*'] },
        message: ['writer'],
        credentials: { GITHUB_TOKEN: { hosts: ['api.github.com'], in: 'header:authorization' } },
        egress: ['*.wikipedia.org', 'api.github.com'],
      },
      cron: [{ schedule: 'every 30m', heartbeat: true }],
    },
    writer: { model: 'local/llama3.1' },
  },
  channels: {
    telegram: {
      enabled: false,
      token: 'vault:TELEGRAM_BOT_TOKEN',
      default_agent: 'researcher',
      allow_groups: true,
      webhook: { url: 'https://bot.example/hook', secret_token: 'vault:TELEGRAM_WEBHOOK_SECRET', port: 8443 },
    },
  },
  workflows: 'workflows/',
};

describe('meshConfigSchema', () => {
  it('accepts the whole documented mesh.yaml shape', () => {
    const result = meshConfigSchema.safeParse(full);
    expect(result.error?.issues).toBeUndefined();
  });

  it('resolves tiers to provider/model', () => {
    const config = meshConfigSchema.parse(full);
    expect(resolveModel(config, 'complex')).toBe('anthropic/claude-opus-4-1');
    expect(resolveModel(config, 'local/llama3.1')).toBe('local/llama3.1');
  });

  it('falls back to default_model for a tier that is not set', () => {
    const config = meshConfigSchema.parse({ llm: { providers: { openai: {} } }, agents: { a: {} } });
    expect(resolveModel(config, 'fast')).toBe('openai/gpt-4.1-mini');
  });

  it('rejects a message permission naming an unknown agent', () => {
    const bad = structuredClone(full);
    bad.agents.researcher.permissions.message = ['nobody'];
    const issue = meshConfigSchema.safeParse(bad).error?.issues[0];
    expect(issue?.path).toEqual(['agents', 'researcher', 'permissions', 'message', 0]);
    expect(issue?.message).toContain('no agent "nobody"');
  });

  it('requires a script for a scripted provider', () => {
    const result = meshConfigSchema.safeParse({
      llm: { default_model: 'demo/x', providers: { demo: { kind: 'scripted' } } },
      agents: { a: {} },
    });
    expect(result.error?.issues[0]?.path).toEqual(['llm', 'providers', 'demo', 'script']);
  });

  it('gives each agent context, loop and browser defaults', () => {
    const agent = meshConfigSchema.parse({ agents: { a: {} }, llm: { providers: { openai: {} } } }).agents.a;
    expect(agent?.context).toEqual({
      flush_at: 0.6,
      compact_at: 0.7,
      wrap_up_at: 0.8,
      strategy: 'lossless',
      keep_turns: 4,
    });
    expect(agent?.loop).toEqual({
      max_tool_rounds: 30,
      max_task_iterations: 20,
      escalate: false,
      classify: false,
    });
    expect(agent?.browser.tier).toBe('basic');
  });

  it('limits egress to ports 80 and 443 unless an agent lists others, each 1-65535', () => {
    const parsed = meshConfigSchema.parse(full);
    expect(parsed.agents.writer?.permissions.egress_ports).toEqual([80, 443]);
    const wider = structuredClone(full) as typeof full & {
      agents: { writer: { permissions?: { egress_ports: number[] } } };
    };
    wider.agents.writer.permissions = { egress_ports: [8080] };
    expect(meshConfigSchema.parse(wider).agents.writer?.permissions.egress_ports).toEqual([8080]);
    for (const port of [0, 65_536, 1.5]) {
      wider.agents.writer.permissions = { egress_ports: [port] };
      const issue = meshConfigSchema.safeParse(wider).error?.issues[0];
      expect(issue?.path, String(port)).toEqual(['agents', 'writer', 'permissions', 'egress_ports', 0]);
    }
  });

  it('keeps the network lockdown required unless runtime.allow_unlocked_network says otherwise', () => {
    expect(meshConfigSchema.parse(full).runtime.allow_unlocked_network).toBe(false);
    const allowed = { ...full, runtime: { ...full.runtime, allow_unlocked_network: true } };
    expect(meshConfigSchema.parse(allowed).runtime.allow_unlocked_network).toBe(true);
  });

  it('refuses context thresholds out of order', () => {
    const result = meshConfigSchema.safeParse({
      agents: { a: { context: { flush_at: 0.75 } } },
      llm: { providers: { openai: {} } },
    });
    expect(result.error?.issues[0]?.path).toEqual(['agents', 'a', 'context']);
    expect(result.error?.issues[0]?.message).toContain('flush_at < compact_at < wrap_up_at');
  });

  it('requires a vault reference for a cdp browser', () => {
    const result = meshConfigSchema.safeParse({
      agents: { a: { browser: { tier: 'cdp' } } },
      llm: { providers: { openai: {} } },
    });
    expect(result.error?.issues[0]?.path).toEqual(['agents', 'a', 'browser', 'cdp_url']);
  });
});

describe('meshConfigJsonSchema', () => {
  it('describes the top-level sections', () => {
    const schema = meshConfigJsonSchema() as { properties: Record<string, unknown>; required?: string[] };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['mesh', 'runtime', 'llm', 'agents', 'channels', 'workflows']),
    );
    expect(schema.required).toEqual(['agents']);
  });
});
