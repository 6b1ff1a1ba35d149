import { describe, expect, it } from 'vitest';
import { contextWindowFor, DEFAULT_CONTEXT_WINDOW_TOKENS } from './context-window.js';

describe('contextWindowFor', () => {
  it('knows the windows of the main model families', () => {
    expect(contextWindowFor('openai/gpt-4.1-mini')).toBe(1_047_576);
    expect(contextWindowFor('openai/gpt-4o-mini')).toBe(128_000);
    expect(contextWindowFor('anthropic/claude-sonnet-4-5')).toBe(200_000);
    expect(contextWindowFor('gemini/gemini-2.5-flash')).toBe(1_048_576);
    expect(contextWindowFor('ollama/llama3.1:8b')).toBe(131_072);
    expect(contextWindowFor('mistral/mistral-large-latest')).toBe(131_072);
    expect(contextWindowFor('deepseek/deepseek-chat')).toBe(131_072);
  });

  it('reads the model name after the last slash, so routers and prefixes do not matter', () => {
    expect(contextWindowFor('openrouter/anthropic/claude-3.5-haiku')).toBe(200_000);
    expect(contextWindowFor('OPENAI/GPT-4O')).toBe(128_000);
  });

  it('falls back to a safe default for an unknown model', () => {
    expect(contextWindowFor('local/my-finetune')).toBe(DEFAULT_CONTEXT_WINDOW_TOKENS);
    expect(DEFAULT_CONTEXT_WINDOW_TOKENS).toBe(32_768);
  });

  it('lets mesh.yaml window_tokens override the table', () => {
    expect(contextWindowFor('openai/gpt-4.1', 64_000)).toBe(64_000);
  });
});
