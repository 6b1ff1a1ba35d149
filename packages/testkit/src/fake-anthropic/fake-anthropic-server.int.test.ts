import { readSseFrames } from '@openlegion/infra/sse';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from './fake-anthropic-server.js';

const SCRIPT = `
models: [claude-test]
rules:
  - match: { last_message: weather }
    reply: { text: "Let me look.", tool_calls: [{ name: get_weather, arguments: { city: Paris, unit: celsius } }] }
  - match: { tool_result: sunny }
    reply: { text: "It is sunny." }
  - match: { last_message: busy }
    fail: { status: 529, message: Overloaded }
  - match: { last_message: slow down }
    fail: { status: 429, retry_after_s: 7 }
  - match: { last_message: break }
    reply: { chunks: ["one ", "two ", "three"] }
    fail: { disconnect_after_chunks: 1 }
  - match: { last_message: cached }
    reply: { text: "from cache", usage: { prompt_tokens: 1000, completion_tokens: 3, cached_tokens: 800 } }
default: { chunks: ["Hello", " there", " friend"] }
`;

/** The fields these tests read of an answer or an error body. */
interface MessagesBody {
  content: unknown;
  usage: unknown;
  error: { type: string; message: string };
}
const bodyOf = async (response: Response) => (await response.json()) as MessagesBody;

describe('fake Anthropic Messages server', () => {
  let fake: FakeAnthropic;
  const headers = {
    'content-type': 'application/json',
    'x-api-key': 'sk-ant-test',
    'anthropic-version': '2023-06-01',
  };
  const call = (body: unknown, extra: Record<string, string> = {}) =>
    fetch(`${fake.url}/messages`, {
      method: 'POST',
      headers: { ...headers, ...extra },
      body: JSON.stringify(body),
    });
  const ask = (text: string, more: Record<string, unknown> = {}) =>
    call({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: text }], ...more });
  const events = async (response: Response) => {
    const out: Array<{ event?: string; data: Record<string, unknown> }> = [];
    for await (const frame of readSseFrames(response.body as unknown as AsyncIterable<Uint8Array>))
      out.push({ ...(frame.event ? { event: frame.event } : {}), data: JSON.parse(frame.data) });
    return out;
  };

  beforeEach(async () => {
    fake ??= await startFakeAnthropic({ script: SCRIPT });
    fake.reset();
  });
  afterAll(() => fake.close());

  it('answers a message with its text, end_turn and usage, and records the request with its headers', async () => {
    const response = await ask('hi');
    expect(response.status).toBe(200);
    const message = await response.json();
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello there friend' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 1, output_tokens: 5 },
    });
    expect(fake.requests[0]?.headers['x-api-key']).toBe('sk-ant-test');
    expect(fake.requests[0]?.body).toMatchObject({ model: 'claude-test', max_tokens: 100 });
  });

  it('streams the documented events: message_start, ping, text and tool_use blocks with input_json_delta, message_delta, message_stop', async () => {
    const streamed = await events(await ask("what's the weather", { stream: true }));
    const types = streamed.map((event) => event.event);
    expect(types[0]).toBe('message_start');
    expect(types).toContain('ping');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(streamed.every((event) => event.event === event.data.type)).toBe(true);
    const starts = streamed.filter((event) => event.event === 'content_block_start');
    expect(starts.map((event) => (event.data.content_block as { type: string }).type)).toEqual([
      'text',
      'tool_use',
    ]);
    const json = streamed
      .map((event) => event.data.delta as { type?: string; partial_json?: string } | undefined)
      .filter((delta) => delta?.type === 'input_json_delta')
      .map((delta) => delta?.partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual({ city: 'Paris', unit: 'celsius' });
    expect(streamed.at(-2)?.data).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });

  it('stops at a stop sequence and at max_tokens, saying which', async () => {
    const stopped = await (await ask('hi', { stop_sequences: [' friend'] })).json();
    expect(stopped).toMatchObject({
      content: [{ text: 'Hello there' }],
      stop_reason: 'stop_sequence',
      stop_sequence: ' friend',
    });
    const cut = await (await ask('hi', { max_tokens: 2 })).json();
    expect(cut).toMatchObject({
      content: [{ text: 'Hello th' }],
      stop_reason: 'max_tokens',
      usage: { output_tokens: 2 },
    });
  });

  it('reports cached prompt tokens as cache_read_input_tokens, apart from input_tokens', async () => {
    const message = await bodyOf(await ask('cached'));
    expect(message.usage).toEqual({
      input_tokens: 200,
      output_tokens: 3,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 800,
    });
  });

  it('refuses what Anthropic refuses: no key, no version, a system role in messages, a tool_use with no tool_result', async () => {
    const hi = { model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] };
    expect((await call(hi, { 'x-api-key': '' })).status).toBe(401);
    expect((await call(hi, { 'anthropic-version': '' })).status).toBe(400);
    const system = await call({
      model: 'claude-test',
      max_tokens: 5,
      messages: [{ role: 'system', content: 'x' }],
    });
    expect(system.status).toBe(400);
    expect(await system.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const orphan = await call({
      model: 'claude-test',
      max_tokens: 5,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
        { role: 'user', content: 'y' },
      ],
    });
    expect(orphan.status).toBe(400);
    expect((await bodyOf(orphan)).error.message).toContain('without `tool_result` blocks');
  });

  it('answers a tool result paired with its call from the rules', async () => {
    const response = await call({
      model: 'claude-test',
      max_tokens: 50,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_weather', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'sunny, 21C' }] },
      ],
    });
    expect((await bodyOf(response)).content).toEqual([{ type: 'text', text: 'It is sunny.' }]);
  });

  it('fails as scripted with Anthropic error bodies: 529 overloaded_error, 429 with Retry-After', async () => {
    const busy = await ask('busy');
    expect(busy.status).toBe(529);
    expect(await busy.json()).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    const limited = await ask('slow down');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect((await bodyOf(limited)).error.type).toBe('rate_limit_error');
  });

  it('breaks a stream off with an error event after the scripted number of text deltas', async () => {
    const streamed = await events(await ask('break', { stream: true }));
    const texts = streamed.filter(
      (event) => (event.data.delta as { type?: string } | undefined)?.type === 'text_delta',
    );
    expect(texts).toHaveLength(1);
    expect(streamed.at(-1)).toMatchObject({
      event: 'error',
      data: { type: 'error', error: { type: 'overloaded_error' } },
    });
  });
});
