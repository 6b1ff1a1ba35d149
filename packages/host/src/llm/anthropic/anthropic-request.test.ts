import { OpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { toAnthropicRequest } from './anthropic-request.js';

const options = { upstreamModel: 'claude-sonnet-4-5', defaultMaxTokens: 64_000 };
const PNG = 'iVBORw0KGgo=';

describe('toAnthropicRequest', () => {
  it('moves system and developer messages to the top-level system, with a cache breakpoint on the last block', () => {
    const request = toAnthropicRequest(
      {
        messages: [
          { role: 'system', content: 'Be terse.' },
          { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
          { role: 'user', content: 'hi' },
        ],
      },
      options,
    );
    expect(request.system).toEqual([
      { type: 'text', text: 'Be terse.' },
      { type: 'text', text: 'Use metric units.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(request.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    expect(request).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 64_000 });
  });

  it('turns data-URL images into base64 image blocks and http URLs into URL image blocks', () => {
    const request = toAnthropicRequest(
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'compare' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
            ],
          },
        ],
      },
      options,
    );
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'compare' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
  });

  it('refuses an image type or a content part Anthropic cannot take, naming the field', () => {
    const bmp = () =>
      toAnthropicRequest(
        {
          messages: [
            {
              role: 'user',
              content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,AA' } }],
            },
          ],
        },
        options,
      );
    expect(bmp).toThrow(OpenLegionError);
    expect(bmp).toThrow('messages[0].content[0].image_url.url: images of type image/bmp are not supported');
    const audio = () =>
      toAnthropicRequest(
        { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] },
        options,
      );
    expect(audio).toThrow('messages[0].content[0].type: parts of type "input_audio" are not supported');
  });

  it('turns tool calls into tool_use blocks and consecutive tool results into one user message, ahead of the text after them', () => {
    const request = toAnthropicRequest(
      {
        messages: [
          { role: 'user', content: 'weather in Paris and Rome?' },
          {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'weather', arguments: '{"city":"Paris"}' },
              },
              { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
          { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'rain' }] },
          { role: 'user', content: 'and tomorrow?' },
        ],
      },
      options,
    );
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: 'sunny' }] },
          { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: 'rain' }] },
          { type: 'text', text: 'and tomorrow?' },
        ],
      },
    ]);
  });

  it('gives tools an input_schema with a cache breakpoint on the last, and maps tool_choice', () => {
    const tools = [
      {
        type: 'function',
        function: {
          name: 'a',
          description: 'first',
          parameters: { type: 'object', properties: { x: { type: 'string' } } },
        },
      },
      { type: 'function', function: { name: 'b' } },
    ];
    const request = toAnthropicRequest(
      { messages: [{ role: 'user', content: 'go' }], tools, tool_choice: 'required' },
      options,
    );
    expect(request.tools).toEqual([
      {
        name: 'a',
        description: 'first',
        input_schema: { type: 'object', properties: { x: { type: 'string' } } },
      },
      { name: 'b', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral' } },
    ]);
    expect(request.tool_choice).toEqual({ type: 'any' });
    const choice = (tool_choice: unknown, parallel_tool_calls?: boolean) =>
      toAnthropicRequest(
        { messages: [{ role: 'user', content: 'go' }], tools, tool_choice, parallel_tool_calls },
        options,
      ).tool_choice;
    expect(choice('none')).toEqual({ type: 'none' });
    expect(choice({ type: 'function', function: { name: 'b' } })).toEqual({ type: 'tool', name: 'b' });
    expect(choice('auto', false)).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(choice('auto')).toBeUndefined();
  });

  it('carries max_tokens, stop, temperature (capped at 1), top_p, user and stream over', () => {
    const request = toAnthropicRequest(
      {
        messages: [{ role: 'user', content: 'go' }],
        max_completion_tokens: 300,
        stop: 'END',
        temperature: 1.5,
        top_p: 0.9,
        user: 'agent-a',
        stream: true,
      },
      options,
    );
    expect(request).toMatchObject({
      max_tokens: 300,
      stop_sequences: ['END'],
      temperature: 1,
      top_p: 0.9,
      metadata: { user_id: 'agent-a' },
      stream: true,
    });
    expect(
      toAnthropicRequest(
        { messages: [{ role: 'user', content: 'go' }], max_tokens: 10, stop: ['a', 'b'] },
        options,
      ),
    ).toMatchObject({
      max_tokens: 10,
      stop_sequences: ['a', 'b'],
    });
  });

  it('keeps a tool call whose arguments are not a JSON object, under "arguments"', () => {
    const request = toAnthropicRequest(
      {
        messages: [
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{oops' } }],
          },
          { role: 'tool', tool_call_id: 'c', content: '' },
        ],
      },
      options,
    );
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c', name: 'f', input: { arguments: '{oops' } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c', content: [{ type: 'text', text: '(no output)' }] },
        ],
      },
    ]);
  });

  it('leaves out an empty assistant turn and merges the user turns either side of it', () => {
    const request = toAnthropicRequest(
      {
        messages: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: '' },
          { role: 'user', content: 'two' },
        ],
      },
      options,
    );
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
    ]);
  });
});
