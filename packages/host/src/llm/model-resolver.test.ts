import {
  type MeshConfig,
  type MeshConfigInput,
  meshConfigSchema,
  OpenLegionError,
} from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { environmentSecrets } from '../secrets/index.js';
import { resolveUpstreamModel } from './index.js';

const input: MeshConfigInput = {
  llm: {
    default_model: 'openai/gpt-4.1-mini',
    tiers: { fast: 'openai/gpt-4.1-nano', complex: 'anthropic/claude-opus-4-1' },
    providers: {
      openai: { api_key: 'vault:OPENAI_API_KEY' },
      anthropic: { api_key: 'env:ANTHROPIC_API_KEY' },
      ollama: {},
      local: { kind: 'openai-compatible', base_url: 'http://127.0.0.1:9999/v1/' },
      demo: { kind: 'scripted', script: 'demo.yaml' },
    },
  },
  agents: { a: {} },
};
const config: MeshConfig = meshConfigSchema.parse(input);
const secrets = environmentSecrets({ OPENAI_API_KEY: 'sk-openai-test', ANTHROPIC_API_KEY: 'sk-ant-test' });

function caught(run: () => unknown): OpenLegionError {
  try {
    run();
  } catch (error) {
    if (error instanceof OpenLegionError) return error;
    throw error;
  }
  throw new Error('expected an OpenLegionError');
}

describe('resolveUpstreamModel', () => {
  it('resolves a tier to its configured provider/model', () => {
    expect(resolveUpstreamModel({ config, secrets }, 'fast')).toEqual({
      provider: 'openai',
      kind: 'openai',
      model: 'openai/gpt-4.1-nano',
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-openai-test',
      keyRef: 'vault:OPENAI_API_KEY',
      upstreamModel: 'gpt-4.1-nano',
    });
  });

  it('resolves a tier without its own model to the default model', () => {
    expect(resolveUpstreamModel({ config, secrets }, 'default').model).toBe('openai/gpt-4.1-mini');
  });

  it("uses anthropic's OpenAI-compatible endpoint with the key from an env: reference", () => {
    const resolved = resolveUpstreamModel({ config, secrets }, 'complex');
    expect(resolved).toMatchObject({
      baseUrl: 'https://api.anthropic.com/v1',
      apiKey: 'sk-ant-test',
      upstreamModel: 'claude-opus-4-1',
    });
  });

  it('keeps every "/" after the provider in the upstream model name', () => {
    expect(resolveUpstreamModel({ config, secrets }, 'local/org/model:7b').upstreamModel).toBe(
      'org/model:7b',
    );
  });

  it('calls ollama locally without a key', () => {
    const resolved = resolveUpstreamModel({ config, secrets }, 'ollama/llama3.1');
    expect(resolved.baseUrl).toBe('http://127.0.0.1:11434/v1');
    expect(resolved.apiKey).toBeUndefined();
  });

  it('strips the trailing "/" of a configured base URL', () => {
    expect(resolveUpstreamModel({ config, secrets }, 'local/m').baseUrl).toBe('http://127.0.0.1:9999/v1');
  });

  it('sends a scripted provider to the URL of its running fake LLM', () => {
    const resolved = resolveUpstreamModel(
      { config, secrets, baseUrlOverrides: { demo: 'http://127.0.0.1:4567/v1' } },
      'demo/gpt-test',
    );
    expect(resolved).toMatchObject({ kind: 'scripted', baseUrl: 'http://127.0.0.1:4567/v1' });
  });

  it('refuses a scripted provider whose fake LLM is not running', () => {
    expect(caught(() => resolveUpstreamModel({ config, secrets }, 'demo/gpt-test')).code).toBe(
      'CONFIG_INVALID',
    );
  });

  it('names the configured providers when the provider is unknown', () => {
    const error = caught(() => resolveUpstreamModel({ config, secrets }, 'mistral/large'));
    expect(error.code).toBe('LLM_PROVIDER_UNKNOWN');
    expect(error.message).toContain('configured: anthropic, demo, local, ollama, openai');
  });

  it('names the missing variable, never a value, when the key is not set', () => {
    const error = caught(() =>
      resolveUpstreamModel(
        { config, secrets: environmentSecrets({ ANTHROPIC_API_KEY: 'sk-ant-test' }) },
        'fast',
      ),
    );
    expect(error.code).toBe('LLM_PROVIDER_KEY_MISSING');
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(JSON.stringify(error.toJSON())).not.toContain('sk-ant-test');
  });

  it('rejects a model that is neither a tier nor provider/model', () => {
    const error = caught(() => resolveUpstreamModel({ config, secrets }, 'gpt-4'));
    expect(error.code).toBe('LLM_MODEL_INVALID');
    expect(error.message).toContain('"gpt-4"');
  });
});
