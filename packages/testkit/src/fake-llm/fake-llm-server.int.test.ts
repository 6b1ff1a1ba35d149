import { EventEmitter } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { APIError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlm, type FakeLlmCliIo, runFakeLlmCli, startFakeLlm } from '../index.js';

const SCRIPT = `
models: [gpt-test, gpt-test-mini]
rules:
  - match: { last_message: hello }
    reply: { text: "Hello! I am the scripted reply." }
  - match: { last_message: "what time" }
    reply:
      tool_calls: [{ name: get_time, arguments: { tz: UTC, format: "iso-8601 with offset" } }]
  - match: { tool_result: "12:00" }
    reply: { text: "It is noon." }
  - match: { last_message: once }
    times: 1
    reply: { text: first time only }
  - match: { last_message: boom }
    fail: { status: 503, message: overloaded }
  - match: { last_message: drop }
    reply: { chunks: ["one ", "two ", "three ", "four"] }
    fail: { disconnect_after_chunks: 2 }
  - match: { last_message: slow }
    reply: { text: "late reply", delay_ms: 150 }
  - match: { model: gpt-test-mini }
    reply: { text: "mini {{model}} says {{last_message}}", usage: { prompt_tokens: 10, completion_tokens: 5 } }
`;

const API_KEY = 'sk-test-123';

let llm: FakeLlm;
let client: OpenAI;

beforeAll(async () => {
  llm = await startFakeLlm({ script: SCRIPT });
  client = new OpenAI({ baseURL: llm.url, apiKey: API_KEY, maxRetries: 0 });
});

afterAll(async () => {
  await llm.close();
});

afterEach(() => {
  llm.reset();
});

function ask(content: string, model = 'gpt-test') {
  return client.chat.completions.create({ model, messages: [{ role: 'user', content }] });
}

async function streamDeltas(content: string): Promise<string[]> {
  const stream = await client.chat.completions.create({
    model: 'gpt-test',
    messages: [{ role: 'user', content }],
    stream: true,
  });
  const deltas: string[] = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta.content;
    if (delta) deltas.push(delta);
  }
  return deltas;
}

describe('startFakeLlm chat completions', () => {
  it('answers a matching rule with an OpenAI chat.completion', async () => {
    const completion = await ask('well hello there');
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-test',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello! I am the scripted reply.' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 4, completion_tokens: 8, total_tokens: 12 },
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
  });

  it('streams reply text as several content deltas', async () => {
    const deltas = await streamDeltas('hello');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe('Hello! I am the scripted reply.');
  });

  it('sends role first, then finish_reason, then usage when include_usage is set', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 8 } });
  });

  it('falls back to echoing the last message when no rule matches', async () => {
    const completion = await ask('nothing scripted');
    expect(completion.choices[0]?.message.content).toBe('echo: nothing scripted');
  });

  it('renders templates and uses the rule usage override', async () => {
    const completion = await ask('hi', 'gpt-test-mini');
    expect(completion.choices[0]?.message.content).toBe('mini gpt-test-mini says hi');
    expect(completion.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  it('reads text from content part arrays', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'parts say HELLO' }] }],
    });
    expect(completion.choices[0]?.message.content).toBe('Hello! I am the scripted reply.');
  });

  it('uses a rule at most `times` times, until reset', async () => {
    expect((await ask('once')).choices[0]?.message.content).toBe('first time only');
    expect((await ask('once')).choices[0]?.message.content).toBe('echo: once');
    llm.reset();
    expect((await ask('once')).choices[0]?.message.content).toBe('first time only');
  });

  it('waits delay_ms before answering', async () => {
    const started = performance.now();
    await ask('slow');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });
});

describe('startFakeLlm tool calls', () => {
  const expectedArguments = { tz: 'UTC', format: 'iso-8601 with offset' };

  it('returns tool calls in a non-stream completion', async () => {
    const completion = await ask('what time is it?');
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type).toBe('function');
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect(call.id).toMatch(/^call_/);
    expect(call.function.name).toBe('get_time');
    expect(JSON.parse(call.function.arguments)).toEqual(expectedArguments);
  });

  it('streams tool call arguments in fragments that join to the JSON', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'what time is it?' }],
      stream: true,
    });
    let name = '';
    let id = '';
    const argumentFragments: string[] = [];
    let finishReason: string | null | undefined;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      for (const call of choice?.delta.tool_calls ?? []) {
        expect(call.index).toBe(0);
        if (call.id) id = call.id;
        if (call.function?.name) name = call.function.name;
        if (call.function?.arguments) argumentFragments.push(call.function.arguments);
      }
      finishReason = choice?.finish_reason ?? finishReason;
    }
    expect(id).toMatch(/^call_/);
    expect(name).toBe('get_time');
    expect(argumentFragments.length).toBeGreaterThan(1);
    expect(JSON.parse(argumentFragments.join(''))).toEqual(expectedArguments);
    expect(finishReason).toBe('tool_calls');
  });

  it('matches the tool result of the current turn', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: 'what time is it?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '12:00 UTC' },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('It is noon.');
    expect(llm.requests[0]?.ruleIndex).toBe(2);
  });
});

describe('startFakeLlm failures', () => {
  it('surfaces a scripted failure as an APIError with its status', async () => {
    const error = await ask('boom').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ status: 503, error: { message: 'overloaded', type: 'server_error' } });
  });

  it('makes the SDK stream throw when the connection drops mid-stream', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'drop' }],
      stream: true,
    });
    const received: string[] = [];
    const consume = async (): Promise<void> => {
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta.content;
        if (delta) received.push(delta);
      }
    };
    await expect(consume()).rejects.toThrow();
    expect(received).toEqual(['one ', 'two ']);
  });

  it('answers an unknown path with a 404 OpenAI error body', async () => {
    const response = await fetch(`${llm.url}/nope`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        message: 'Invalid URL (POST /v1/nope)',
        type: 'invalid_request_error',
        param: null,
        code: 'not_found',
      },
    });
  });

  it('answers a malformed JSON body with 400', async () => {
    const response = await fetch(`${llm.url}/chat/completions`, { method: 'POST', body: '{"model":' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { type: 'invalid_request_error', code: 'invalid_json' },
    });
  });

  it('answers a request without messages with 400 naming the field', async () => {
    const response = await fetch(`${llm.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-test' }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/^messages: /);
  });
});

describe('startFakeLlm recording', () => {
  it('records every request in order with headers, body and the rule used', async () => {
    await ask('hello');
    await fetch(`${llm.url}/models`);
    expect(llm.requests).toHaveLength(2);
    const [chat, models] = llm.requests;
    expect(chat).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'gpt-test', messages: [{ role: 'user', content: 'hello' }] },
      ruleIndex: 0,
    });
    expect(chat?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(chat?.headers['content-type']).toBe('application/json');
    expect(chat?.at).toBeLessThanOrEqual(Date.now());
    expect(models).toMatchObject({ method: 'GET', path: '/v1/models', body: undefined });
    expect(models?.ruleIndex).toBeUndefined();
  });
});

describe('startFakeLlm embeddings and models', () => {
  it('returns deterministic, normalised embeddings through the SDK', async () => {
    const first = await client.embeddings.create({
      model: 'embed-test',
      input: ['the cat sat', 'a dog ran'],
    });
    const again = await client.embeddings.create({ model: 'embed-test', input: 'the cat sat' });
    expect(first.data).toHaveLength(2);
    const vector = first.data[0]?.embedding ?? [];
    expect(vector).toHaveLength(64);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    expect(again.data[0]?.embedding).toEqual(vector);
    expect(first.data[1]?.embedding).not.toEqual(vector);
    expect(first.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('honours dimensions and the float encoding', async () => {
    const response = await client.embeddings.create({
      model: 'embed-test',
      input: 'hello',
      dimensions: 8,
      encoding_format: 'float',
    });
    const vector = response.data[0]?.embedding ?? [];
    expect(vector).toHaveLength(8);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 10);
  });

  it('lists the script models', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((model) => model.id)).toEqual(['gpt-test', 'gpt-test-mini']);
    expect(models[0]).toMatchObject({ object: 'model', owned_by: 'testkit' });
  });
});

describe('runFakeLlmCli', () => {
  function fakeIo(): FakeLlmCliIo & {
    out: string[];
    err: string[];
    exitCode?: number;
    emitter: EventEmitter;
  } {
    const emitter = new EventEmitter();
    const io = {
      out: [] as string[],
      err: [] as string[],
      exitCode: undefined as number | undefined,
      emitter,
      stdout: (line: string) => io.out.push(line),
      stderr: (line: string) => io.err.push(line),
      signals: emitter,
      setExitCode: (code: number) => {
        io.exitCode = code;
      },
    };
    return io;
  }

  it('prints its listening line, serves the script and stops on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fake-llm-cli-'));
    const file = join(dir, 'script.yaml');
    await writeFile(file, 'models: [cli-model]\n');
    const io = fakeIo();
    const started = await runFakeLlmCli(['--script', file, '--port', '0'], io);
    expect(io.out).toEqual([`fake-llm listening on ${started?.url}`]);
    expect(io.out[0]).toMatch(/^fake-llm listening on http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const models = (await (await fetch(`${started?.url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toEqual(['cli-model']);

    io.emitter.emit('SIGTERM');
    await started?.close();
    await expect(fetch(`${started?.url}/models`)).rejects.toThrow();
    expect(io.emitter.listenerCount('SIGINT')).toBe(0);
  });

  it('reports a missing --script with exit code 2', async () => {
    const io = fakeIo();
    expect(await runFakeLlmCli([], io)).toBeUndefined();
    expect(io.err[0]).toBe('fake-llm: --script is required');
    expect(io.exitCode).toBe(2);
  });
});
