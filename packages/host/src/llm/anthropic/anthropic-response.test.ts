import { describe, expect, it } from 'vitest';
import { toChatCompletion, toFinishReason } from './anthropic-response.js';

describe('toChatCompletion', () => {
  it('joins text blocks into content and turns tool_use blocks into tool_calls with JSON arguments', () => {
    const completion = toChatCompletion(
      {
        id: 'msg_1',
        model: 'claude-sonnet-4-5',
        content: [
          { type: 'thinking', text: 'hmm' },
          { type: 'text', text: 'Let me ' },
          { type: 'text', text: 'check.' },
          { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 10, output_tokens: 5 },
      },
      'claude-sonnet-4-5',
      1_700_000_000_000,
    );
    expect(completion).toMatchObject({
      id: 'msg_1',
      object: 'chat.completion',
      created: 1_700_000_000,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me check.',
            tool_calls: [
              {
                id: 'toolu_1',
                type: 'function',
                function: { name: 'weather', arguments: '{"city":"Paris"}' },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
  });

  it('counts cached and cache-written tokens into prompt_tokens and reports the cached ones', () => {
    const completion = toChatCompletion(
      {
        content: [],
        stop_reason: 'end_turn',
        usage: {
          input_tokens: 20,
          output_tokens: 7,
          cache_read_input_tokens: 900,
          cache_creation_input_tokens: 80,
        },
      },
      'm',
      0,
    );
    expect(completion.usage).toEqual({
      prompt_tokens: 1000,
      completion_tokens: 7,
      total_tokens: 1007,
      prompt_tokens_details: { cached_tokens: 900 },
    });
    expect((completion.choices as Array<{ message: { content: unknown } }>)[0]?.message.content).toBeNull();
  });

  it('maps stop reasons: end_turn and stop_sequence to stop, max_tokens to length, tool_use to tool_calls', () => {
    expect(['end_turn', 'stop_sequence', 'max_tokens', 'tool_use', 'refusal'].map(toFinishReason)).toEqual([
      'stop',
      'stop',
      'length',
      'tool_calls',
      'content_filter',
    ]);
  });
});
