import { OpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { type AnthropicStreamEvent, AnthropicStreamTranslator } from './anthropic-stream.js';

const EVENTS: AnthropicStreamEvent[] = [
  {
    type: 'message_start',
    message: { id: 'msg_1', usage: { input_tokens: 30, output_tokens: 1, cache_read_input_tokens: 70 } },
  },
  { type: 'ping' },
  { type: 'content_block_start', index: 0, content_block: { type: 'text' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'weather' },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 12 } },
  { type: 'message_stop' },
];

const run = (includeUsage: boolean) => {
  const translator = new AnthropicStreamTranslator({ model: 'claude-test', now: 5_000, includeUsage });
  return EVENTS.flatMap((event) => translator.translate(event)).map((data) =>
    data === '[DONE]' ? data : (JSON.parse(data) as Record<string, unknown>),
  );
};
const delta = (chunk: unknown) => (chunk as { choices: Array<{ delta: unknown }> }).choices[0]?.delta;

describe('AnthropicStreamTranslator', () => {
  it('turns text and tool_use blocks into OpenAI chunks: role, content, a tool call with id and name, argument fragments', () => {
    const chunks = run(false);
    expect(chunks.slice(0, 5).map(delta)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hi' },
      {
        tool_calls: [
          { index: 0, id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '' } },
        ],
      },
      { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
    ]);
    expect(chunks[0]).toMatchObject({
      id: 'msg_1',
      object: 'chat.completion.chunk',
      model: 'claude-test',
      created: 5,
    });
  });

  it('ends with the finish reason and [DONE], and no usage chunk unless the client asked for it', () => {
    const chunks = run(false);
    expect(chunks.at(-2)).toMatchObject({ choices: [{ delta: {}, finish_reason: 'tool_calls' }] });
    expect(chunks.at(-1)).toBe('[DONE]');
    expect(chunks.some((chunk) => typeof chunk === 'object' && 'usage' in chunk)).toBe(false);
  });

  it('sends a final usage chunk with the output tokens of message_delta and the cached prompt tokens when asked', () => {
    const chunks = run(true);
    expect(chunks.at(-2)).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 12,
        total_tokens: 112,
        prompt_tokens_details: { cached_tokens: 70 },
      },
    });
    expect(chunks[1]).toMatchObject({ usage: null });
  });

  it('throws LLM_PROVIDER_UNAVAILABLE on an error event, naming its type', () => {
    const translator = new AnthropicStreamTranslator({ model: 'm', now: 0, includeUsage: false });
    const failing = () =>
      translator.translate({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(failing).toThrow(OpenLegionError);
    expect(failing).toThrow('anthropic stream error (overloaded_error): Overloaded');
  });
});
