import type { ErrorBody, MeshStatus } from '@openlegion/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeAgentRuntime } from '../../test/fake-agent-runtime.js';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { TokenRegistry } from '../auth/index.js';
import type { HostFeature } from '../features/index.js';
import { fleetFeature } from '../fleet/index.js';
import { instructionsFeature } from '../instructions/index.js';
import { lanesFeature } from '../lanes/index.js';
import { llmFeature } from '../llm/index.js';
import { operatorFeature } from '../operator/index.js';
import { AGENT_REGISTRY, type AgentRegistry, registryFeature } from '../registry/index.js';

const config = {
  llm: { providers: { openai: { api_key: 'env:OPENAI_API_KEY' } } },
  agents: { a: { role: 'tester' }, b: { role: 'tester' } },
};
const status: MeshStatus = {
  mesh: 'openlegion',
  version: '0.1.0',
  pid: 1,
  url: 'http://127.0.0.1:8420',
  started_at: '2025-01-01T00:00:00.000Z',
  runtime: 'process',
  agents: [],
  warnings: [],
};

/** A route whose handler fails with an internal detail that must not reach the caller. */
const failingFeature: HostFeature = {
  name: 'failing',
  routes: (app) =>
    app.get('/api/fails', async () => {
      throw new Error('secret internal detail');
    }),
};

function errorOf(response: { json: () => unknown }): ErrorBody['error'] {
  return (response.json() as ErrorBody).error;
}

describe('the host app', () => {
  let host: FeatureTestHost;
  let registry: AgentRegistry;
  let tokens: TokenRegistry;
  let agentToken: string;
  let shutdowns: number;

  beforeEach(async () => {
    tokens = new TokenRegistry();
    agentToken = tokens.mint('a');
    tokens.mint('b');
    shutdowns = 0;
    const fleet = fleetFeature({ runtime: new FakeAgentRuntime(), beforeLaunch: async () => {} });
    const features = [
      registryFeature(),
      llmFeature(),
      lanesFeature(),
      instructionsFeature(),
      operatorFeature({
        meshStatus: () => status,
        onShutdown: () => {
          shutdowns += 1;
        },
      }),
      fleet,
      failingFeature,
    ];
    host = await startFeatureTestHost(features, config, { tokens, start: false });
    registry = host.service(AGENT_REGISTRY);
    registry.register({
      name: 'a',
      runtime: 'process',
      model: 'openai/gpt-4.1-mini',
      url: 'http://127.0.0.1:1',
    });
    registry.register({ name: 'b', runtime: 'process', model: 'openai/gpt-4.1-mini' });
  });
  afterEach(async () => {
    await host.stop();
  });

  const asOperator = () => host.operatorAuth;
  const asAgent = () => ({ authorization: `Bearer ${agentToken}` });

  it('answers /healthz without a token', async () => {
    const response = await host.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true });
  });

  it('answers 401 AUTH_MISSING in the protocol error body when no token is sent', async () => {
    const response = await host.app.inject({ method: 'GET', url: '/api/status' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      error: { code: 'AUTH_MISSING', message: 'send Authorization: Bearer <token>', retryable: false },
    });
  });

  it('answers 401 AUTH_INVALID to an unknown token', async () => {
    const response = await host.app.inject({
      method: 'GET',
      url: '/mesh/self',
      headers: { authorization: 'Bearer nope' },
    });
    expect(response.statusCode).toBe(401);
    expect(errorOf(response).code).toBe('AUTH_INVALID');
  });

  it('answers 403 AUTH_FORBIDDEN when an agent calls the operator API', async () => {
    const response = await host.app.inject({ method: 'GET', url: '/api/status', headers: asAgent() });
    expect(response.statusCode).toBe(403);
    expect(errorOf(response).code).toBe('AUTH_FORBIDDEN');
  });

  it('answers 403 AUTH_FORBIDDEN when the operator calls an agent-only route', async () => {
    const response = await host.app.inject({ method: 'GET', url: '/mesh/self', headers: asOperator() });
    expect(response.statusCode).toBe(403);
    expect(errorOf(response).code).toBe('AUTH_FORBIDDEN');
  });

  it('answers 404 NOT_FOUND to an unknown route, token or not', async () => {
    const response = await host.app.inject({ method: 'GET', url: '/nowhere' });
    expect(response.statusCode).toBe(404);
    expect(errorOf(response)).toMatchObject({ code: 'NOT_FOUND', message: 'no route GET /nowhere' });
  });

  it('answers 400 REQUEST_INVALID naming the field that failed validation', async () => {
    const response = await host.app.inject({
      method: 'POST',
      url: '/api/agents/a/chat',
      headers: asOperator(),
      payload: { message: '' },
    });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).code).toBe('REQUEST_INVALID');
    expect(errorOf(response).message).toContain('body.message');
  });

  it('answers 400 REQUEST_INVALID to a body that is not JSON', async () => {
    const response = await host.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...asAgent(), 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).code).toBe('REQUEST_INVALID');
  });

  it('answers 500 INTERNAL without the fault itself when a handler fails unexpectedly', async () => {
    const response = await host.app.inject({ method: 'GET', url: '/api/fails', headers: asOperator() });
    expect(response.statusCode).toBe(500);
    expect(errorOf(response).code).toBe('INTERNAL');
    expect(response.body).not.toContain('secret internal detail');
  });

  it('tells an agent about itself, identified by its token alone', async () => {
    const response = await host.app.inject({ method: 'GET', url: '/mesh/self', headers: asAgent() });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      agent: 'a',
      role: 'tester',
      memory: { recall_chars: 2_000 },
      skills: { disabled: [], prompt_chars: 2_000 },
      tool_loading: 'on_demand',
    });
  });

  it('marks the calling agent ready on POST /mesh/ready', async () => {
    const response = await host.app.inject({
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
    const response = await host.app.inject({ method: 'GET', url: '/api/status', headers: asOperator() });
    expect(response.json()).toEqual(status);
  });

  it('answers 404 AGENT_UNKNOWN listing the agents when chatting with an unknown agent', async () => {
    const response = await host.app.inject({
      method: 'POST',
      url: '/api/agents/zz/chat',
      headers: asOperator(),
      payload: { message: 'hi' },
    });
    expect(response.statusCode).toBe(404);
    expect(errorOf(response)).toMatchObject({
      code: 'AGENT_UNKNOWN',
      message: 'no agent "zz" (agents: a, b)',
    });
  });

  it('answers 503 AGENT_NOT_READY when chatting with an agent that failed', async () => {
    registry.markFailed('b', new Error('crashed'));
    const response = await host.app.inject({
      method: 'POST',
      url: '/api/agents/b/chat',
      headers: asOperator(),
      payload: { message: 'hi' },
    });
    expect(response.statusCode).toBe(503);
    expect(errorOf(response)).toMatchObject({ code: 'AGENT_NOT_READY', retryable: true });
  });

  it('answers 202 to POST /api/shutdown and then calls onShutdown', async () => {
    const response = await host.app.inject({ method: 'POST', url: '/api/shutdown', headers: asOperator() });
    expect(response.statusCode).toBe(202);
    expect(shutdowns).toBe(1);
  });

  it('lists the tiers and configured models on GET /v1/models', async () => {
    const response = await host.app.inject({ method: 'GET', url: '/v1/models', headers: asAgent() });
    const ids = (response.json() as { data: { id: string }[] }).data.map((model) => model.id);
    expect(ids).toEqual(['fast', 'default', 'complex', 'openai/gpt-4.1-mini']);
  });

  it('answers 400 LLM_PROVIDER_UNKNOWN before calling any provider', async () => {
    const response = await host.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: asOperator(),
      payload: { model: 'mistral/large', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(response.statusCode).toBe(400);
    expect(errorOf(response).code).toBe('LLM_PROVIDER_UNKNOWN');
  });

  it('answers 500 LLM_PROVIDER_KEY_MISSING naming the variable when the key is not set', async () => {
    const response = await host.app.inject({
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
