import type { AddressInfo } from 'node:net';
import type { ErrorBody, MeshConfigInput } from '@openlegion/protocol';
import { type FakeAnthropic, type FakeLlm, startFakeAnthropic, startFakeLlm } from '@openlegion/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { costsFeature, USAGE_RECORDED, type UsageRecord } from '../costs/index.js';
import { environmentSecrets } from '../secrets/index.js';
import { llmFeature } from './llm-feature.js';

// One script for both kinds of provider: the same behaviour must come out of /v1 through either.
const SCRIPT = `
models: [claude-test, gpt-test]
rules:
  - match: { last_message: weather }
    reply: { text: "Checking.", tool_calls: [{ name: get_weather, arguments: { city: Paris } }] }
  - match: { tool_result: sunny }
    reply: { text: "It is sunny in Paris." }
  - match: { last_message: cached }
    reply: { text: "cheap", usage: { prompt_tokens: 10000, completion_tokens: 100, cached_tokens: 8000 } }
  - match: { last_message: overloaded, model: claude-test }
    fail: { status: 529, message: Overloaded }
  - match: { last_message: rate limited, model: claude-test }
    fail: { status: 429, message: "Number of request tokens has exceeded your per-minute rate limit", retry_after_s: 20 }
  - match: { last_message: huge }
    fail: { status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" }
  - match: { last_message: break }
    reply: { chunks: ["one ", "two ", "three"] }
    fail: { disconnect_after_chunks: 1 }
default: { chunks: ["Hello", " from", " the", " model"] }
`;

const config: MeshConfigInput = {
  llm: {
    default_model: 'anthropic/claude-test',
    tiers: { fast: 'oai/gpt-test' },
    fallbacks: ['oai/gpt-test'],
    embedding_model: 'oai/text-embedding-test',
    prices: {
      'anthropic/claude-test': { input: 3, output: 15, cached_input: 0.3, max_output_tokens: 4_000 },
      'oai/gpt-test': { input: 1, output: 2 },
    },
    providers: {
      anthropic: { api_keys: ['env:ANTHROPIC_KEY_OLD', 'env:ANTHROPIC_KEY'] },
      oai: { kind: 'openai-compatible', api_key: 'env:OAI_KEY' },
    },
  },
  agents: { a: {} },
};

const TOOLS: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

describe('the Anthropic adapter through /v1', () => {
  let anthropic: FakeAnthropic;
  let oai: FakeLlm;
  let host: FeatureTestHost;
  let url: string;
  const recorded: UsageRecord[] = [];

  beforeAll(async () => {
    anthropic = await startFakeAnthropic({ script: SCRIPT, apiKeys: ['sk-ant-live'] });
    oai = await startFakeLlm({ script: SCRIPT });
    const costs = costsFeature();
    host = await startFeatureTestHost(
      [costs, llmFeature({ baseUrlOverrides: { anthropic: anthropic.url, oai: oai.url }, meterCosts: true })],
      config,
      {
        secrets: environmentSecrets({
          ANTHROPIC_KEY_OLD: 'sk-ant-revoked',
          ANTHROPIC_KEY: 'sk-ant-live',
          OAI_KEY: 'sk-oai',
        }),
      },
    );
    host.context.events.on(USAGE_RECORDED, (usage) => recorded.push(usage));
    await host.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await host.stop();
    await anthropic.close();
    await oai.close();
  });
  beforeEach(async () => {
    anthropic.reset();
    oai.reset();
    recorded.length = 0;
    // Let any cooldown a test caused pass.
    await host.clock.advance(3_600_000);
  });

  const client = () =>
    new OpenAI({ baseURL: `${url}/v1`, apiKey: host.agentAuth('a').authorization.slice(7), maxRetries: 0 });
  const lastAnthropicBody = () => anthropic.requests.at(-1)?.body as Record<string, unknown>;

  describe.each([
    ['anthropic', 'anthropic/claude-test'],
    ['openai-compatible', 'oai/gpt-test'],
  ])('the official openai client, unchanged, through a provider of kind %s', (_kind, model) => {
    it('gets a plain answer with usage and finish_reason stop', async () => {
      const completion = await client().chat.completions.create({
        model,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi' },
        ],
      });
      expect(completion.choices[0]?.message.content).toBe('Hello from the model');
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
    });

    it('streams the answer as several text deltas and a final usage chunk', async () => {
      const stream = await client().chat.completions.create({
        model,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'hi' }],
      });
      const deltas: string[] = [];
      let finish: string | null | undefined;
      let usage: OpenAI.CompletionUsage | null | undefined;
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        if (choice?.delta.content) deltas.push(choice.delta.content);
        if (choice?.finish_reason) finish = choice.finish_reason;
        if (chunk.usage) usage = chunk.usage;
      }
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join('')).toBe('Hello from the model');
      expect(finish).toBe('stop');
      expect(usage?.completion_tokens).toBeGreaterThan(0);
    });

    it('calls a tool, then answers from its result (tool calls and results round trip)', async () => {
      const first = await client().chat.completions.create({
        model,
        tools: TOOLS,
        messages: [{ role: 'user', content: "what's the weather in Paris?" }],
      });
      const choice = first.choices[0];
      expect(choice?.finish_reason).toBe('tool_calls');
      const call = choice?.message.tool_calls?.[0];
      expect(call?.type === 'function' && call.function.name).toBe('get_weather');
      expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
      const second = await client().chat.completions.create({
        model,
        tools: TOOLS,
        messages: [
          { role: 'user', content: "what's the weather in Paris?" },
          choice?.message as OpenAI.ChatCompletionMessageParam,
          { role: 'tool', tool_call_id: call?.id ?? '', content: 'sunny, 24C' },
        ],
      });
      expect(second.choices[0]?.message.content).toBe('It is sunny in Paris.');
    });

    it('streams a tool call as deltas the openai client assembles', async () => {
      const stream = client().chat.completions.stream({
        model,
        tools: TOOLS,
        messages: [{ role: 'user', content: 'weather please' }],
      });
      const final = await stream.finalChatCompletion();
      const call = final.choices[0]?.message.tool_calls?.[0];
      expect(final.choices[0]?.finish_reason).toBe('tool_calls');
      expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    });
  });

  it('sends Anthropic the Messages API: its headers, system on top, tools with input_schema, caching breakpoints, max_tokens from the price table', async () => {
    await client().chat.completions.create({
      model: 'anthropic/claude-test',
      tools: TOOLS,
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    const request = anthropic.requests.at(-1);
    expect(request?.path).toBe('/v1/messages');
    expect(request?.headers).toMatchObject({ 'x-api-key': 'sk-ant-live', 'anthropic-version': '2023-06-01' });
    expect(request?.headers.authorization).toBeUndefined();
    expect(lastAnthropicBody()).toEqual({
      model: 'claude-test',
      max_tokens: 4_000,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'The weather in a city',
          input_schema: TOOLS[0]?.type === 'function' ? TOOLS[0].function.parameters : undefined,
          cache_control: { type: 'ephemeral' },
        },
      ],
    });
  });

  it('maps max_tokens and stop sequences to finish_reason length and stop', async () => {
    const cut = await client().chat.completions.create({
      model: 'anthropic/claude-test',
      max_tokens: 2,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(cut.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'Hello fr' } });
    const stopped = await client().chat.completions.create({
      model: 'anthropic/claude-test',
      stop: [' the'],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(stopped.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Hello from' } });
    expect(lastAnthropicBody()).toMatchObject({ stop_sequences: [' the'] });
  });

  it('records the cost from the usage Anthropic reported, cached prompt tokens at the cached price', async () => {
    for (const stream of [false, true]) {
      const answer = await client().chat.completions.create({
        model: 'anthropic/claude-test',
        stream,
        ...(stream ? { stream_options: { include_usage: true } } : {}),
        messages: [{ role: 'user', content: 'cached' }],
      });
      if (stream) for await (const _chunk of answer as AsyncIterable<unknown>);
      else expect((answer as OpenAI.ChatCompletion).usage?.prompt_tokens_details?.cached_tokens).toBe(8_000);
    }
    await expect.poll(() => recorded.length).toBe(2);
    for (const usage of recorded) {
      expect(usage).toMatchObject({
        model: 'anthropic/claude-test',
        prompt_tokens: 10_000,
        completion_tokens: 100,
        cached_tokens: 8_000,
        estimated: 0,
      });
      expect(usage.cost_usd).toBeCloseTo((2_000 * 3 + 8_000 * 0.3 + 100 * 15) / 1e6, 10);
    }
  });

  it('fails over from an Anthropic 529 to the fallback and records the cost against the model that answered', async () => {
    const completion = await client().chat.completions.create({
      model: 'anthropic/claude-test',
      messages: [{ role: 'user', content: 'overloaded' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Hello from the model');
    expect(oai.requests).toHaveLength(1);
    const health = await host.app.inject({ url: '/api/llm/health', headers: host.operatorAuth });
    expect(health.json().models).toContainEqual(
      expect.objectContaining({ model: 'anthropic/claude-test', state: 'cooldown', last_failure: 'server' }),
    );
    await expect.poll(() => recorded.map((usage) => usage.model)).toEqual(['oai/gpt-test']);
  });

  it('fails over from an Anthropic 429 and cools the model down for its Retry-After', async () => {
    await client().chat.completions.create({
      model: 'anthropic/claude-test',
      messages: [{ role: 'user', content: 'rate limited' }],
    });
    const models = (await host.app.inject({ url: '/api/llm/health', headers: host.operatorAuth })).json()
      .models;
    const state = models.find((entry: { model: string }) => entry.model === 'anthropic/claude-test');
    expect(state).toMatchObject({ state: 'cooldown', last_failure: 'rate' });
    expect(Date.parse(state.cooldown_until) - host.clock.now()).toBe(20_000);
  });

  it('sends "prompt is too long" back as LLM_CONTEXT_OVERFLOW without failing over', async () => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...host.agentAuth('a'), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'anthropic/claude-test', messages: [{ role: 'user', content: 'huge' }] }),
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as ErrorBody;
    expect(error.code).toBe('LLM_CONTEXT_OVERFLOW');
    expect(error.message).toContain('prompt is too long');
    expect(oai.requests).toHaveLength(0);
  });

  it('uses the next key when Anthropic refuses one, and never sends a refused key twice', async () => {
    for (let call = 0; call < 3; call++) {
      const completion = await client().chat.completions.create({
        model: 'anthropic/claude-test',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(completion.choices[0]?.message.content).toBe('Hello from the model');
    }
    const keys = anthropic.requests.map((request) => request.headers['x-api-key']);
    expect(keys.filter((key) => key === 'sk-ant-revoked')).toHaveLength(1);
    expect(keys.slice(-3)).toEqual(['sk-ant-live', 'sk-ant-live', 'sk-ant-live']);
    expect(oai.requests).toHaveLength(0);
  });

  it('ends a stream Anthropic breaks off with an error event, after the text already sent and nothing twice', async () => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...host.agentAuth('a'), 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'anthropic/claude-test',
        stream: true,
        messages: [{ role: 'user', content: 'break' }],
      }),
    });
    const text = await response.text();
    expect(text).toContain('"content":"one "');
    expect(text).not.toContain('two');
    expect(text).toMatch(/event: error\ndata: .*LLM_PROVIDER_UNAVAILABLE.*overloaded_error/);
    expect(oai.requests).toHaveLength(0);
  });

  it('refuses embeddings from an Anthropic model with a 400 naming the problem, calling nobody', async () => {
    const response = await fetch(`${url}/v1/embeddings`, {
      method: 'POST',
      headers: { ...host.agentAuth('a'), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'anthropic/claude-test', input: 'hello' }),
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as ErrorBody;
    expect(error.code).toBe('LLM_MODEL_INVALID');
    expect(error.message).toContain('Anthropic has no embeddings API');
    expect(anthropic.requests).toHaveLength(0);
  });

  it('makes embeddings with the openai client through the registry (the openai-compatible embedding model)', async () => {
    const embeddings = await client().embeddings.create({
      model: 'oai/text-embedding-test',
      input: ['a', 'b'],
    });
    expect(embeddings.data).toHaveLength(2);
    expect(oai.requests[0]?.headers.authorization).toBe('Bearer sk-oai');
  });
});
