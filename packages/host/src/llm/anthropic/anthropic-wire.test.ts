import { describe, expect, it } from 'vitest';
import { ProviderUnavailableError } from '../upstream-errors.js';
import { anthropicCall, fromAnthropicResponse } from './anthropic-wire.js';

const sse = (...events: Array<Record<string, unknown>>) =>
  new Response(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''), {
    headers: { 'content-type': 'text/event-stream' },
  });
const options = { stream: true, includeUsage: false, model: 'claude-test', now: 0 };
const START = { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 3 } } };

describe('anthropicCall', () => {
  it('posts to <base_url>/messages with x-api-key and anthropic-version, never a bearer token', () => {
    const call = anthropicCall(
      { baseUrl: 'https://api.anthropic.com/v1', upstreamModel: 'claude-x', apiKey: 'sk-ant' },
      { messages: [{ role: 'user', content: 'hi' }] },
      1_000,
    );
    expect(call.url).toBe('https://api.anthropic.com/v1/messages');
    expect(call.headers).toMatchObject({ 'x-api-key': 'sk-ant', 'anthropic-version': '2023-06-01' });
    expect(call.headers.authorization).toBeUndefined();
    expect(JSON.parse(call.body)).toMatchObject({ model: 'claude-x', max_tokens: 1_000 });
  });
});

describe('fromAnthropicResponse', () => {
  it('rejects with LLM_PROVIDER_UNAVAILABLE when a stream opens with an error event, so the call can fail over', async () => {
    const opening = sse(
      { type: 'ping' },
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    );
    await expect(fromAnthropicResponse(opening, options)).rejects.toBeInstanceOf(ProviderUnavailableError);
  });

  it('errors the translated stream when Anthropic ends it before message_stop', async () => {
    const response = await fromAnthropicResponse(
      sse(START, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
      options,
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"role":"assistant"');
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return;
      })(),
    ).rejects.toThrow('before message_stop');
  });

  it('turns a JSON answer into a chat.completion', async () => {
    const answer = new Response(
      JSON.stringify({
        id: 'msg_2',
        content: [{ type: 'text', text: 'ok' }],
        stop_reason: 'end_turn',
        usage: {},
      }),
    );
    const completion = await (await fromAnthropicResponse(answer, { ...options, stream: false })).json();
    expect(completion).toMatchObject({
      id: 'msg_2',
      choices: [{ message: { content: 'ok' }, finish_reason: 'stop' }],
    });
  });
});
