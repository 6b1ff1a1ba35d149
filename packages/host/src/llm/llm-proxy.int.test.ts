import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ErrorBody, MeshConfigInput } from '@openlegion/protocol';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { environmentSecrets } from '../secrets/index.js';
import { llmFeature } from './index.js';

const PROVIDER_KEY = 'sk-upstream-key-for-tests';
const SCRIPT = `
models: [gpt-test]
rules:
  - match: { last_message: overloaded }
    fail: { status: 503, message: upstream overloaded }
  - match: { last_message: refused }
    fail: { status: 400, message: "context too long" }
  - match: { last_message: stream please }
    reply: { chunks: ["Hel", "lo ", "wor", "ld"], chunk_delay_ms: 5 }
default: { text: "plain answer" }
`;

const config: MeshConfigInput = {
  llm: {
    default_model: 'openai/gpt-test',
    embedding_model: 'openai/text-embedding-test',
    // Tiers, so the agent may call them (its model, the tiers, the fallbacks, the embedding model).
    tiers: { fast: 'gated/m', complex: 'gone/model' },
    providers: {
      openai: { api_key: 'vault:OPENAI_API_KEY' },
      gone: { kind: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' },
      gated: { kind: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' },
    },
  },
  agents: { a: {} },
};

const GATED_FIRST = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'one' } }] })}\n\n`;
const GATED_SECOND = 'data: [DONE]\n\n';

interface GatedUpstream {
  server: Server;
  url: string;
  releaseSecond: () => void;
}

/** A provider whose stream waits, after its first chunk, until the test lets it go on. */
async function startGatedUpstream(): Promise<GatedUpstream> {
  let releaseSecond = () => {};
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(GATED_FIRST);
    new Promise<void>((resolve) => {
      releaseSecond = resolve;
    }).then(() => res.end(GATED_SECOND));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/v1`, releaseSecond: () => releaseSecond() };
}

describe('LLM proxy through the host', () => {
  let fakeLlm: FakeLlm;
  let gated: GatedUpstream;
  let host: FeatureTestHost;
  let hostUrl: string;
  let agentToken: string;

  beforeAll(async () => {
    fakeLlm = await startFakeLlm({ script: SCRIPT });
    gated = await startGatedUpstream();
    const baseUrlOverrides = { openai: fakeLlm.url, gated: gated.url };
    host = await startFeatureTestHost([llmFeature({ baseUrlOverrides })], config, {
      secrets: environmentSecrets({ OPENAI_API_KEY: PROVIDER_KEY }),
    });
    agentToken = host.agentAuth('a').authorization.slice('Bearer '.length);
    await host.app.listen({ host: '127.0.0.1', port: 0 });
    hostUrl = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await host.stop();
    await fakeLlm.close();
    gated.server.close();
  });
  beforeEach(() => fakeLlm.reset());

  const client = () => new OpenAI({ baseURL: `${hostUrl}/v1`, apiKey: agentToken, maxRetries: 0 });
  const post = (path: string, body: unknown, token: string | null = agentToken) =>
    fetch(`${hostUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });

  it('forwards a completion with the provider key from the environment and the bare model name', async () => {
    const completion = await client().chat.completions.create({
      model: 'openai/gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('plain answer');
    const upstream = fakeLlm.requests[0];
    expect(upstream?.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(upstream?.body).toMatchObject({ model: 'gpt-test' });
  });

  it('never sends the agent token to the provider', async () => {
    await client().chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'hi' }] });
    expect(JSON.stringify(fakeLlm.requests)).not.toContain(agentToken);
  });

  it('streams the answer to the openai SDK as several chunks', async () => {
    const stream = await client().chat.completions.create({
      model: 'default',
      stream: true,
      messages: [{ role: 'user', content: 'stream please' }],
    });
    const deltas: string[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.content;
      if (delta) deltas.push(delta);
    }
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello world');
  });

  it('passes each streamed chunk on before the provider sends the next (no buffering)', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'gated/m',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const reader = (response.body ?? new ReadableStream<Uint8Array>()).getReader();
    // The provider sends its second chunk only once the client has read the first.
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe(GATED_FIRST);
    gated.releaseSecond();
    let rest = '';
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      rest += new TextDecoder().decode(next.value);
    }
    expect(rest).toBe(GATED_SECOND);
  });

  it('answers 503 LLM_PROVIDER_UNAVAILABLE when the provider answers 503', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'default',
      messages: [{ role: 'user', content: 'overloaded' }],
    });
    expect(response.status).toBe(503);
    const { error } = (await response.json()) as ErrorBody;
    expect(error).toMatchObject({ code: 'LLM_PROVIDER_UNAVAILABLE', retryable: true });
    expect(error.message).toContain('upstream overloaded');
    // The model now cools down (failover): let the cooldown pass for the tests after this one.
    await host.clock.advance(60_000);
  });

  it("answers a provider's 400 as 400 LLM_REQUEST_REJECTED with the upstream status and message", async () => {
    const response = await post('/v1/chat/completions', {
      model: 'default',
      messages: [{ role: 'user', content: 'refused' }],
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as ErrorBody;
    expect(error).toMatchObject({ code: 'LLM_REQUEST_REJECTED', details: { status: 400 } });
    expect(error.message).toContain('context too long');
    expect(JSON.stringify(error)).not.toContain(PROVIDER_KEY);
  });

  it('refuses an agent a model that is not its own, a tier, a fallback or the embedding model (403)', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'openai/someone-elses-model',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.status).toBe(403);
    const { error } = (await response.json()) as ErrorBody;
    expect(error.code).toBe('LLM_MODEL_FORBIDDEN');
    expect(error.message).toContain('may not call openai/someone-elses-model: it may call openai/gpt-test');
    expect(fakeLlm.requests).toHaveLength(0);
  });

  it('answers 503 LLM_PROVIDER_UNAVAILABLE when the provider cannot be reached', async () => {
    const response = await post('/v1/chat/completions', {
      model: 'gone/model',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.status).toBe(503);
    expect(((await response.json()) as ErrorBody).error.code).toBe('LLM_PROVIDER_UNAVAILABLE');
  });

  it('answers 401 AUTH_MISSING to a request without a token, before calling the provider', async () => {
    const response = await post(
      '/v1/chat/completions',
      { model: 'default', messages: [{ role: 'user', content: 'hi' }] },
      null,
    );
    expect(response.status).toBe(401);
    expect(((await response.json()) as ErrorBody).error.code).toBe('AUTH_MISSING');
    expect(fakeLlm.requests).toHaveLength(0);
  });

  it('answers 413 to a body over the size limit and 400 to one that is not JSON, calling no provider', async () => {
    const huge = await post('/v1/chat/completions', {
      model: 'default',
      messages: [{ role: 'user', content: 'x'.repeat(11 * 1024 * 1024) }],
    });
    expect(huge.status).toBe(413);
    const { error } = (await huge.json()) as ErrorBody;
    expect(error.message).toMatch(/too large|limit/i);
    const garbled = await fetch(`${hostUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${agentToken}` },
      body: '{"model": "default", "messages": [',
    });
    expect(garbled.status).toBe(400);
    expect(((await garbled.json()) as ErrorBody).error.code).toBe('REQUEST_INVALID');
    expect(fakeLlm.requests).toHaveLength(0);
  });

  it('forwards embeddings to the configured embedding model', async () => {
    const response = await post('/v1/embeddings', { input: 'hello' });
    expect(response.status).toBe(200);
    expect(fakeLlm.requests[0]?.body).toMatchObject({ model: 'text-embedding-test', input: 'hello' });
  });

  it('lists the configured tiers and models to the openai SDK', async () => {
    const models = await client().models.list();
    expect(models.data.map((model) => model.id)).toContain('openai/gpt-test');
  });
});
