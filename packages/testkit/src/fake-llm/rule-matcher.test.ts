import { describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from './openai-request.js';
import { matchesRequest, selectRule } from './rule-matcher.js';
import { parseFakeLlmScript } from './script.js';

function request(messages: ChatCompletionRequest['messages'], model = 'gpt-test'): ChatCompletionRequest {
  return { model, messages };
}

describe('matchesRequest', () => {
  it('matches a case-insensitive substring of the last message', () => {
    const chat = request([{ role: 'user', content: 'Well, HELLO there' }]);
    expect(matchesRequest({ last_message: 'hello' }, chat)).toBe(true);
    expect(matchesRequest({ last_message: 'bye' }, chat)).toBe(false);
  });

  it('reads text from content part arrays', () => {
    const chat = request([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi ' },
          { type: 'text', text: 'you' },
        ],
      },
    ]);
    expect(matchesRequest({ last_message_regex: '^hi you$' }, chat)).toBe(true);
  });

  it('requires every given condition', () => {
    const chat = request([{ role: 'user', content: 'hello' }], 'gpt-test-mini');
    expect(matchesRequest({ last_message: 'hello', model: 'gpt-test-mini', role: 'user' }, chat)).toBe(true);
    expect(matchesRequest({ last_message: 'hello', model: 'gpt-test' }, chat)).toBe(false);
  });

  it('matches tool results only after the last user message', () => {
    const earlier = request([
      { role: 'user', content: 'first' },
      { role: 'tool', content: '42' },
      { role: 'user', content: 'second' },
    ]);
    const current = request([
      { role: 'user', content: 'time?' },
      { role: 'assistant', content: null },
      { role: 'tool', content: 'it is 42 past' },
    ]);
    expect(matchesRequest({ tool_result: '42' }, earlier)).toBe(false);
    expect(matchesRequest({ tool_result: '42' }, current)).toBe(true);
  });
});

describe('selectRule', () => {
  it('skips rules whose times are used up', () => {
    const { rules } = parseFakeLlmScript({
      rules: [{ times: 1, reply: { text: 'once' } }, { reply: { text: 'always' } }],
    });
    const chat = request([{ role: 'user', content: 'x' }]);
    expect(selectRule(rules, [0, 0], chat)).toBe(0);
    expect(selectRule(rules, [1, 0], chat)).toBe(1);
  });

  it('returns undefined when nothing matches', () => {
    const { rules } = parseFakeLlmScript({ rules: [{ match: { model: 'other' }, reply: { text: 'a' } }] });
    expect(selectRule(rules, [0], request([{ role: 'user', content: 'x' }]))).toBeUndefined();
  });
});
