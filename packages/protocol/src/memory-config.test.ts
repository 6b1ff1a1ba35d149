import { describe, expect, it } from 'vitest';
import { memoryEmbedder, meshConfigSchema } from './mesh-config.js';

const providers = { openai: {}, voyage: { kind: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' } };

describe('agents.NAME.memory', () => {
  it('defaults to the documented values: embedder from llm, 2,000 recall characters, extract and dedup on the fast tier', () => {
    const config = meshConfigSchema.parse({ llm: { providers }, agents: { a: {} } });
    expect(config.agents.a?.memory).toEqual({
      recall_chars: 2000,
      fast_tier: { extract: true, dedup: true, admission: false, rerank: false },
    });
    expect(memoryEmbedder(config, 'a')).toBe('local');
  });

  it('embeds with llm.embedding_model unless the agent names its own embedder, local or a tier', () => {
    const config = meshConfigSchema.parse({
      llm: {
        providers,
        embedding_model: 'openai/text-embedding-3-small',
        tiers: { fast: 'openai/gpt-4.1-nano' },
      },
      agents: {
        a: {},
        b: { memory: { embedder: 'local' } },
        c: { memory: { embedder: 'voyage/voyage-3' } },
        d: { memory: { embedder: 'fast' } },
      },
    });
    expect(memoryEmbedder(config, 'a')).toBe('openai/text-embedding-3-small');
    expect(memoryEmbedder(config, 'b')).toBe('local');
    expect(memoryEmbedder(config, 'c')).toBe('voyage/voyage-3');
    expect(memoryEmbedder(config, 'd')).toBe('openai/gpt-4.1-nano');
  });

  it('takes recall_chars 0 as recall off and refuses a negative one', () => {
    const off = meshConfigSchema.parse({
      llm: { providers },
      agents: { a: { memory: { recall_chars: 0 } } },
    });
    expect(off.agents.a?.memory.recall_chars).toBe(0);
    const result = meshConfigSchema.safeParse({
      llm: { providers },
      agents: { a: { memory: { recall_chars: -1 } } },
    });
    expect(result.error?.issues[0]?.path).toEqual(['agents', 'a', 'memory', 'recall_chars']);
  });

  it('names the embedder that is neither local, a tier nor provider/model, and a provider not configured', () => {
    const bad = meshConfigSchema.safeParse({
      llm: { providers },
      agents: { a: { memory: { embedder: 'text-embedding-3-small' } } },
    });
    expect(bad.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      [
        'agents.a.memory.embedder',
        'use local, a tier (fast, default, complex) or provider/model (e.g. openai/text-embedding-3-small)',
      ],
    ]);
    const unknown = meshConfigSchema.safeParse({
      llm: { providers },
      agents: { a: { memory: { embedder: 'cohere/embed-v4' } } },
    });
    expect(unknown.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      [
        'agents.a.memory.embedder',
        'provider "cohere" is not configured under llm.providers (have: openai, voyage)',
      ],
    ]);
  });

  it('refuses unknown fields in memory and fast_tier', () => {
    const result = meshConfigSchema.safeParse({
      llm: { providers },
      agents: { a: { memory: { fast_tier: { summarise: true } } } },
    });
    expect(result.error?.issues[0]?.path).toEqual(['agents', 'a', 'memory', 'fast_tier']);
  });
});
