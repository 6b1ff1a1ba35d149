import type { AddressInfo } from 'node:net';
import type { MeshConfigInput } from '@openlegion/protocol';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import OpenAI, {
  APIError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  UnprocessableEntityError,
} from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { environmentSecrets } from '../secrets/index.js';
import { llmFeature } from './index.js';

/** Each message makes the provider answer as a real one does to a request it cannot serve. */
const SCRIPT = {
  models: ['primary', 'backup'],
  rules: [
    { match: { last_message: 'bad' }, fail: { status: 400, message: "Invalid value for 'temperature'" } },
    {
      match: { last_message: 'gone' },
      fail: { status: 404, message: 'The model `primary` does not exist', code: 'model_not_found' },
    },
    { match: { last_message: 'huge' }, fail: { status: 413, message: 'request entity too large' } },
    { match: { last_message: 'odd' }, fail: { status: 422, message: 'tool schema is not valid' } },
    { match: { last_message: 'locked' }, fail: { status: 401, message: 'invalid api key' } },
    {
      match: { last_message: 'cut' },
      reply: { chunks: ['one ', 'two ', 'three'] },
      fail: { disconnect_after_chunks: 1 },
    },
  ],
  default: { text: 'fine' },
};

const config: MeshConfigInput = {
  llm: {
    default_model: 'up/primary',
    // A fallback that would answer: a request error must not reach it.
    fallbacks: ['up/backup'],
    providers: {
      up: { kind: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', api_key: 'env:UP_KEY' },
    },
  },
  agents: { a: {} },
};

describe("a provider's errors through the official openai client", () => {
  let llm: FakeLlm;
  let host: FeatureTestHost;
  let baseURL: string;
  let agentToken: string;

  beforeAll(async () => {
    llm = await startFakeLlm({ script: SCRIPT });
    host = await startFeatureTestHost([llmFeature({ baseUrlOverrides: { up: llm.url } })], config, {
      secrets: environmentSecrets({ UP_KEY: 'k' }),
    });
    agentToken = host.agentAuth('a').authorization.slice('Bearer '.length);
    await host.app.listen({ host: '127.0.0.1', port: 0 });
    baseURL = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await host.stop();
    await llm.close();
  });
  beforeEach(() => llm.reset());

  // The client's default retries (2) stay on: a request error must be sent once, not three times.
  const client = (apiKey = agentToken) => new OpenAI({ baseURL, apiKey });
  const failureOf = async (content: string, stream = false): Promise<APIError> => {
    try {
      await client().chat.completions.create({
        model: 'up/primary',
        messages: [{ role: 'user', content }],
        stream,
      });
    } catch (error) {
      if (error instanceof APIError) return error;
      throw error;
    }
    throw new Error(`"${content}" was answered`);
  };

  it.each([
    ['bad', 'BadRequestError', BadRequestError, 400, 'LLM_REQUEST_REJECTED', null],
    ['gone', 'NotFoundError', NotFoundError, 404, 'LLM_MODEL_NOT_FOUND', 'model'],
    ['huge', 'APIError', APIError, 413, 'LLM_REQUEST_TOO_LARGE', null],
    ['odd', 'UnprocessableEntityError', UnprocessableEntityError, 422, 'LLM_REQUEST_UNPROCESSABLE', null],
  ] as const)(
    'a provider answer to "%s" reaches the client as %s (its status, not 502), sent to the provider once',
    async (message, _name, kind, status, code, param) => {
      const error = await failureOf(message);
      expect(error).toBeInstanceOf(kind);
      expect([error.status, error.code, error.type, error.param]).toEqual([
        status,
        code,
        'invalid_request_error',
        param,
      ]);
      expect(error.message).toContain(`provider "up" answered ${status}`);
      expect(error.headers?.get('x-should-retry')).toBe('false');
      expect(llm.requests).toHaveLength(1);
    },
  );

  it("keeps the provider's own code beside the mesh's, and answers a stream request's 400 as a 400", async () => {
    const gone = await failureOf('gone');
    expect(gone.error).toMatchObject({
      code: 'LLM_MODEL_NOT_FOUND',
      retryable: false,
      details: { provider: 'up', model: 'up/primary', status: 404, provider_code: 'model_not_found' },
    });
    const streamed = await failureOf('bad', true);
    expect([streamed instanceof BadRequestError, streamed.code]).toEqual([true, 'LLM_REQUEST_REJECTED']);
    expect(llm.requests).toHaveLength(2);
  });

  it('answers a refused provider key, after failover, 502 LLM_PROVIDER_ERROR that the client does not retry', async () => {
    const error = await failureOf('locked');
    // A retry would have found both models cooling down: 503 LLM_PROVIDER_UNAVAILABLE.
    expect(error).toBeInstanceOf(InternalServerError);
    expect([error.status, error.code, error.type]).toEqual([502, 'LLM_PROVIDER_ERROR', 'server_error']);
    expect(error.headers?.get('x-should-retry')).toBe('false');
    expect(llm.requests.map((request) => (request.body as { model: string }).model)).toEqual([
      'primary',
      'backup',
    ]);
    // Both models now cool down for an hour (a refused key): let it pass for the tests after this one.
    await host.clock.advance(3_600_000);
  });

  it('raises a stream broken after its first byte in the client as an APIError of the mesh code', async () => {
    const stream = await client().chat.completions.create({
      model: 'up/primary',
      messages: [{ role: 'user', content: 'cut' }],
      stream: true,
    });
    const broken = await (async () => {
      for await (const _chunk of stream);
    })().catch((error: unknown) => error);
    expect(broken).toBeInstanceOf(APIError);
    expect(broken).toMatchObject({ code: 'LLM_PROVIDER_UNAVAILABLE', type: 'server_error', param: null });
  });

  it("gives the host's own refusals the OpenAI shape too: a bad token, an empty transcript", async () => {
    const unauthenticated = await client('not-a-token')
      .chat.completions.create({ model: 'up/primary', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(unauthenticated).toBeInstanceOf(AuthenticationError);
    expect(unauthenticated).toMatchObject({
      code: 'AUTH_INVALID',
      type: 'authentication_error',
      param: null,
    });
    const empty = await client()
      .chat.completions.create({ model: 'up/primary', messages: [] })
      .catch((error: unknown) => error);
    expect(empty).toBeInstanceOf(BadRequestError);
    expect(empty).toMatchObject({
      code: 'REQUEST_INVALID',
      type: 'invalid_request_error',
      param: 'messages',
    });
    expect(llm.requests).toHaveLength(0);
  });
});
