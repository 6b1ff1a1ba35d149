import { createLogger } from '@openlegion/infra/log';
import { type ErrorBody, type MeshStatus, meshConfigSchema } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TokenRegistry } from '../auth/index.js';
import { createLlmProxy } from '../llm/index.js';
import { AgentRegistry } from '../registry/index.js';
import { environmentSecrets } from '../secrets/index.js';
import { openStore, type Store } from '../store/index.js';
import { createAgentClient, createHostServer } from './index.js';

const OPERATOR_TOKEN = 'operator-token-for-tests';
const config = meshConfigSchema.parse({
  llm: { providers: { openai: { api_key: 'env:OPENAI_API_KEY' } } },
  agents: { a: {}, b: {} },
});
const status: MeshStatus = {
  mesh: 'openlegion',
  version: '0.1.0',
  pid: 1,
  url: 'http://127.0.0.1:8420',
  started_at: '2025-01-01T00:00:00.000Z',
  runtime: 'process',
  agents: [],
};

function errorOf(response: { json: () => unknown }): ErrorBody['error'] {
  return (response.json() as ErrorBody).error;
}

describe('createHostServer', () => {
  let store: Store;
  let registry: AgentRegistry;
  let tokens: TokenRegistry;
  let app: FastifyInstance;
  let agentToken: string;
  let shutdowns: number;

  beforeEach(() => {
    store = openStore(':memory:');
    registry = new AgentRegistry({ store });
    tokens = new TokenRegistry();
    agentToken = tokens.mint('a');
    tokens.mint('b');
    registry.register({
      name: 'a',
      runtime: 'process',
      model: 'openai/gpt-4.1-mini',
      url: 'http://127.0.0.1:1',
    });
    registry.register({ name: 'b', runtime: 'process', model: 'openai/gpt-4.1-mini' });
    shutdowns = 0;
    const logger = createLogger({ level: 'silent' });
    app = createHostServer({
      logger,
      tokens,
      operatorToken: OPERATOR_TOKEN,
      registry,
      llm: createLlmProxy({ config, secrets: environmentSecrets({}), logger }),
      agentClient: createAgentClient(),
      meshStatus: () => status,
      selfFor: (agent) => {
        if (agent === 'b') throw new Error('secret internal detail');
        return { agent, mesh: 'openlegion', role: 'tester', model: 'openai/gpt-4.1-mini', soul: '' };
      },
      onShutdown: () => {
        shutdowns += 1;
      },
    });
  });
  afterEach(async () => {
    await app.close();
    store.close();
  });

  const asOperator = { authorization: `Bearer ${OPERATOR_TOKEN}` };
  const asAgent = () => ({ authorization: `Bearer ${agentToken}` });

  it('answers /healthz without a token', async () => {
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true });
  });

  it('answers 401 AUTH_MISSING in the protocol error body when no token is sent', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/status' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      error: { code: 'AUTH_MISSING', message: 'send Authorization: Bearer <token>', retryable: false },
    });
  });

  it('answers 401 AUTH_INVALID to an unknown token', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/mesh/self',
      headers: { authorization: 'Bearer nope' },
    });
    expect(response.statusCode).toBe(401);
    expect(errorOf(response).code).toBe('AUTH_INVALID');
  });

  it('answers 403 AUTH_FORBIDDEN when an agent calls the operator API', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/status', headers: asAgent() });
    expect(response.statusCode).toBe(403);
    expect(errorOf(response).code).toBe('AUTH_FORBIDDEN');
  });

  it('answers 403 AUTH_FORBIDDEN when the operator calls an agent-only route', async () => {
    const response = await app.inject({ method: 'GET', url: '/mesh/self', headers: asOperator });
    expect(response.statusCode).toBe(403);
    expect(errorOf(response).code).toBe('AUTH_FORBIDDEN');
  });

  it('answers 404 NOT_FOUND to an unknown route, token or not', async () => {
    const response = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(response.statusCode).toBe(404);
    expect(errorOf(response)).toMatchObject({ code: 'NOT_FOUND', message: 'no route GET /nowhere' });
  });

  it('answers 400 REQUEST_INVALID naming the field that failed validation', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/agents/a/chat',
      headers: asOperator,
      payload: { message: '' },
    });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).code).toBe('REQUEST_INVALID');
    expect(errorOf(response).message).toContain('body.message');
  });

  it('answers 400 REQUEST_INVALID to a body that is not JSON', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...asAgent(), 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).code).toBe('REQUEST_INVALID');
  });

  it('answers 500 INTERNAL without the fault itself when a handler fails unexpectedly', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/mesh/self',
      headers: { authorization: `Bearer ${tokens.tokenFor('b')}` },
    });
    expect(response.statusCode).toBe(500);
    expect(errorOf(response).code).toBe('INTERNAL');
    expect(response.body).not.toContain('secret internal detail');
  });

  it('tells an agent about itself, identified by its token alone', async () => {
    const response = await app.inject({ method: 'GET', url: '/mesh/self', headers: asAgent() });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ agent: 'a', role: 'tester' });
  });

  it('marks the calling agent ready on POST /mesh/ready', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/mesh/ready',
      headers: asAgent(),
      payload: {},
    });
    expect(response.statusCode).toBe(200);
    expect(registry.get('a')?.state).toBe('ready');
    expect(registry.get('b')?.state).toBe('starting');
  });

  it('gives the operator the mesh status', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/status', headers: asOperator });
    expect(response.json()).toEqual(status);
  });

  it('answers 404 AGENT_UNKNOWN listing the agents when chatting with an unknown agent', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/agents/zz/chat',
      headers: asOperator,
      payload: { message: 'hi' },
    });
    expect(response.statusCode).toBe(404);
    expect(errorOf(response)).toMatchObject({
      code: 'AGENT_UNKNOWN',
      message: 'no agent "zz" (agents: a, b)',
    });
  });

  it('answers 503 AGENT_NOT_READY when chatting with an agent that is still starting', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/agents/a/chat',
      headers: asOperator,
      payload: { message: 'hi' },
    });
    expect(response.statusCode).toBe(503);
    expect(errorOf(response)).toMatchObject({ code: 'AGENT_NOT_READY', retryable: true });
  });

  it('answers 202 to POST /api/shutdown and then calls onShutdown', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/shutdown', headers: asOperator });
    expect(response.statusCode).toBe(202);
    expect(shutdowns).toBe(1);
  });

  it('lists the tiers and configured models on GET /v1/models', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/models', headers: asAgent() });
    const ids = (response.json() as { data: { id: string }[] }).data.map((model) => model.id);
    expect(ids).toEqual(['fast', 'default', 'complex', 'openai/gpt-4.1-mini']);
  });

  it('answers 400 LLM_PROVIDER_UNKNOWN before calling any provider', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: asOperator,
      payload: { model: 'mistral/large', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).code).toBe('LLM_PROVIDER_UNKNOWN');
  });

  it('answers 500 LLM_PROVIDER_KEY_MISSING naming the variable when the key is not set', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: asAgent(),
      payload: { model: 'default', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(response.statusCode).toBe(500);
    expect(errorOf(response)).toMatchObject({
      code: 'LLM_PROVIDER_KEY_MISSING',
      message: expect.stringContaining('OPENAI_API_KEY'),
    });
  });
});
