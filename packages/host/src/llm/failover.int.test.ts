import type { MeshConfigInput } from '@openlegion/protocol';
import { type FakeLlm, type FakeLlmScriptInput, startFakeLlm } from '@openlegion/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { environmentSecrets } from '../secrets/index.js';
import { llmFeature } from './llm-feature.js';

const MODELS = ['primary', 'backup', 'third', 'fourth'];
const opened: Array<{ host: FeatureTestHost; llm: FakeLlm }> = [];

/** A host whose provider `up` is a fake LLM answering as `rules` say (then "ok from MODEL"). */
async function meshWith(
  rules: NonNullable<FakeLlmScriptInput['rules']>,
  strategy: 'cascade' | 'round-robin' = 'cascade',
  agentFallbacks: string[] = [],
) {
  const llm = await startFakeLlm({
    script: {
      models: MODELS,
      rules: [
        ...rules,
        ...MODELS.map((model) => ({ match: { model }, reply: { text: `ok from ${model}` } })),
      ],
    },
  });
  const config: MeshConfigInput = {
    llm: {
      default_model: 'up/primary',
      fallbacks: ['up/backup', 'up/third'],
      fallback_strategy: strategy,
      providers: { up: { kind: 'openai-compatible', base_url: llm.url, api_key: 'env:UP_KEY' } },
    },
    agents: { a: { fallbacks: agentFallbacks }, b: {} },
  };
  const host = await startFeatureTestHost([llmFeature()], config, {
    secrets: environmentSecrets({ UP_KEY: 'k' }),
  });
  opened.push({ host, llm });
  const ask = async (model = 'up/primary', agent = 'a') => {
    const response = await host.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: host.agentAuth(agent),
      payload: { model, messages: [{ role: 'user', content: 'hi' }] },
    });
    return { status: response.statusCode, body: response.json() };
  };
  const health = async () =>
    (await host.app.inject({ url: '/api/llm/health', headers: host.operatorAuth })).json().models as Array<{
      model: string;
      state: string;
      cooldown_until: string | null;
      last_failure: string | null;
    }>;
  const calledModels = () => llm.requests.map((request) => (request.body as { model: string }).model);
  return { host, llm, ask, health, calledModels };
}

afterEach(async () => {
  for (const { host, llm } of opened.splice(0)) {
    await host.stop();
    await llm.close();
  }
});

const answerText = (body: { choices: Array<{ message: { content: string } }> }) =>
  body.choices[0]?.message.content;

describe('failover with cooldowns', () => {
  it('moves on after a 5xx, cools the model down 1 min → 5 min, and tries it again once the cooldown ends', async () => {
    const mesh = await meshWith([{ match: { model: 'primary' }, fail: { status: 503 }, times: 2 }]);
    const first = await mesh.ask();
    expect(answerText(first.body)).toBe('ok from backup');
    const cooling = (await mesh.health()).find((model) => model.model === 'up/primary');
    expect(cooling).toMatchObject({ state: 'cooldown', last_failure: 'server' });
    expect(Date.parse(cooling?.cooldown_until ?? '') - mesh.host.clock.now()).toBe(60_000);
    await mesh.ask();
    expect(mesh.calledModels()).toEqual(['primary', 'backup', 'backup']);
    await mesh.host.clock.advance(60_000);
    expect(answerText((await mesh.ask()).body)).toBe('ok from backup'); // failed again: 5 min now
    const again = (await mesh.health()).find((model) => model.model === 'up/primary');
    expect(Date.parse(again?.cooldown_until ?? '') - mesh.host.clock.now()).toBe(300_000);
    await mesh.host.clock.advance(300_000);
    expect(answerText((await mesh.ask()).body)).toBe('ok from primary');
    expect((await mesh.health()).find((model) => model.model === 'up/primary')?.state).toBe('ok');
  });

  it("honours a 429's Retry-After, and cools a billing failure down for an hour", async () => {
    const mesh = await meshWith([
      { match: { model: 'primary' }, fail: { status: 429, retry_after_s: 7 }, times: 1 },
      { match: { model: 'backup' }, fail: { status: 402 }, times: 1 },
    ]);
    expect(answerText((await mesh.ask()).body)).toBe('ok from third');
    const models = await mesh.health();
    const until = (name: string) =>
      Date.parse(models.find((model) => model.model === name)?.cooldown_until ?? '') - mesh.host.clock.now();
    expect(until('up/primary')).toBe(7_000);
    expect(until('up/backup')).toBe(3_600_000);
  });

  it('sends a 400 and a context overflow straight back, trying no other model', async () => {
    const mesh = await meshWith([
      {
        match: { model: 'primary', last_message: 'hi' },
        fail: { status: 400, message: 'bad temperature' },
        times: 1,
      },
      {
        match: { model: 'primary' },
        fail: { status: 400, message: "This model's maximum context length is 8192 tokens" },
        times: 1,
      },
    ]);
    const bad = await mesh.ask();
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('LLM_REQUEST_REJECTED');
    const overflow = await mesh.ask();
    expect(overflow.status).toBe(400);
    expect(overflow.body.error.code).toBe('LLM_CONTEXT_OVERFLOW');
    expect(mesh.calledModels()).toEqual(['primary', 'primary']);
    expect((await mesh.health()).every((model) => model.state === 'ok')).toBe(true);
  });

  it('answers 503 naming when the first model is back when every model is cooling down', async () => {
    const mesh = await meshWith(
      MODELS.map((model) => ({ match: { model }, fail: { status: 500 }, times: 1 })),
    );
    expect((await mesh.ask()).status).toBe(503);
    const cooling = await mesh.ask();
    expect(cooling.status).toBe(503);
    expect(cooling.body.error.message).toMatch(/every model for this call is cooling down .* back at \d{4}-/);
    expect(mesh.calledModels()).toHaveLength(3);
  });

  it('does not fail over after the first streamed byte: the stream ends with an SSE error event, nothing twice', async () => {
    const mesh = await meshWith([
      {
        match: { model: 'primary' },
        reply: { chunks: ['one ', 'two ', 'three'] },
        fail: { disconnect_after_chunks: 2 },
      },
    ]);
    const response = await mesh.host.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: mesh.host.agentAuth('a'),
      payload: { model: 'up/primary', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(response.statusCode).toBe(200);
    const text = response.payload;
    expect(text.split('one ').length).toBe(2);
    expect(text).not.toContain('three');
    expect(text).toMatch(
      /event: error\ndata: \{"error":\{"code":"LLM_PROVIDER_UNAVAILABLE","message":"provider \\"up\\" broke off the stream/,
    );
    expect(mesh.calledModels()).toEqual(['primary']);
  });

  it('repairs the transcript for the provider on the way, leaving the request as it was sent', async () => {
    const mesh = await meshWith([]);
    const messages = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'stray', content: 'x' },
    ];
    await mesh.host.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: mesh.host.agentAuth('a'),
      payload: { model: 'up/primary', messages },
    });
    const last = mesh.llm.requests.at(-1);
    if (!last) throw new Error('the provider got no request');
    const sent = (last.body as { messages: Array<{ role: string; tool_call_id?: string }> }).messages;
    expect(sent.map((message) => [message.role, message.tool_call_id])).toEqual([
      ['user', undefined],
      ['assistant', undefined],
      ['tool', 'c1'],
    ]);
  });

  it("uses a provider's keys in turn and sets a refused key aside, without failing the model over", async () => {
    // Two answers, then the provider refuses the next call's key (key-a, by turn) once.
    const llm = await startFakeLlm({
      script: {
        models: MODELS,
        rules: [
          { match: { model: 'primary' }, reply: { text: 'ok' }, times: 2 },
          { match: { model: 'primary' }, fail: { status: 401, message: 'invalid api key' }, times: 1 },
        ],
        default: { text: 'ok' },
      },
    });
    const host = await startFeatureTestHost(
      [llmFeature()],
      {
        llm: {
          default_model: 'up/primary',
          fallbacks: ['up/backup'],
          providers: {
            up: { kind: 'openai-compatible', base_url: llm.url, api_keys: ['env:KEY_A', 'env:KEY_B'] },
          },
        },
        agents: { a: {} },
      },
      { secrets: environmentSecrets({ KEY_A: 'key-a', KEY_B: 'key-b' }) },
    );
    opened.push({ host, llm });
    const ask = () =>
      host.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: host.agentAuth('a'),
        payload: { model: 'up/primary', messages: [{ role: 'user', content: 'hi' }] },
      });
    await ask();
    await ask();
    const keysUsed = () => llm.requests.map((request) => request.headers.authorization);
    expect(keysUsed()).toEqual(['Bearer key-a', 'Bearer key-b']);
    // key-a is refused now: the call is answered with key-b, by the same model.
    const answered = await ask();
    expect(answered.statusCode).toBe(200);
    expect(keysUsed().slice(2)).toEqual(['Bearer key-a', 'Bearer key-b']);
    expect((llm.requests.at(-1)?.body as { model: string } | undefined)?.model).toBe('primary');
    await ask();
    expect(keysUsed().at(-1)).toBe('Bearer key-b'); // key-a is set aside for an hour
    await host.clock.advance(3_600_000);
    await ask();
    await ask();
    expect(keysUsed().slice(-2).sort()).toEqual(['Bearer key-a', 'Bearer key-b']);
  });

  it('runs embeddings through the same registry, key ring and cooldowns: a refused key set aside, a 5xx cooling the model down', async () => {
    const llm = await startFakeLlm({
      script: {
        rules: [
          { match: { model: 'embed' }, fail: { status: 401, message: 'invalid api key' }, times: 1 },
          { match: { model: 'embed', last_message: 'boom' }, fail: { status: 503 } },
        ],
      },
    });
    const host = await startFeatureTestHost(
      [llmFeature()],
      {
        llm: {
          default_model: 'up/primary',
          embedding_model: 'up/embed',
          providers: {
            up: { kind: 'openai-compatible', base_url: llm.url, api_keys: ['env:KEY_A', 'env:KEY_B'] },
          },
        },
        agents: { a: {} },
      },
      { secrets: environmentSecrets({ KEY_A: 'key-a', KEY_B: 'key-b' }) },
    );
    opened.push({ host, llm });
    const embed = (input: string) =>
      host.app.inject({
        method: 'POST',
        url: '/v1/embeddings',
        headers: host.agentAuth('a'),
        payload: { input },
      });
    expect((await embed('hello')).statusCode).toBe(200);
    expect(llm.requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer key-a',
      'Bearer key-b',
    ]);
    const failed = await embed('boom');
    expect(failed.statusCode).toBe(503);
    expect(failed.json().error.code).toBe('LLM_PROVIDER_UNAVAILABLE');
    const cooling = await embed('hello');
    expect(cooling.statusCode).toBe(503);
    expect(cooling.json().error.message).toContain('cooling down');
    expect(llm.requests).toHaveLength(3);
    await host.clock.advance(60_000);
    expect((await embed('hello')).statusCode).toBe(200);
  });

  it('rotates the fallbacks with round-robin', async () => {
    const mesh = await meshWith([{ match: { model: 'primary' }, fail: { status: 503 } }], 'round-robin');
    const answers: string[] = [];
    for (let call = 0; call < 4; call++) {
      answers.push(answerText((await mesh.ask()).body) ?? '');
      await mesh.host.clock.advance(25 * 60_000); // primary back each time, and failing again
    }
    expect(answers).toEqual(['ok from backup', 'ok from third', 'ok from backup', 'ok from third']);
  });

  it("tries an agent's own fallbacks before the mesh's, and only for that agent", async () => {
    const mesh = await meshWith(
      [
        { match: { model: 'primary' }, fail: { status: 503 } },
        { match: { model: 'backup' }, fail: { status: 503 } },
      ],
      'cascade',
      ['up/fourth'],
    );
    expect(answerText((await mesh.ask('up/primary', 'a')).body)).toBe('ok from fourth');
    expect(mesh.calledModels()).toEqual(['primary', 'fourth']);
    mesh.llm.reset();
    // b has no fallbacks of its own: the mesh's (primary cools down, backup fails, third answers).
    expect(answerText((await mesh.ask('up/primary', 'b')).body)).toBe('ok from third');
    // and b may not call a's fallback directly: it is a's spend.
    expect((await mesh.ask('up/fourth', 'b')).status).toBe(403);
  });
});
