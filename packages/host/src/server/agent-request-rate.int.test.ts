import { afterEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { blackboardFeature } from '../blackboard/index.js';

let host: FeatureTestHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

describe('limits.requests_per_agent_per_s on the host app', () => {
  it('refuses an agent past its rate before the route runs, says when to retry, and leaves others and the operator alone', async () => {
    host = await startFeatureTestHost([blackboardFeature()], {
      llm: { providers: { openai: {} } },
      agents: { mallory: { permissions: { blackboard: { read: ['*'], write: ['*'] } } }, alice: {} },
      limits: { requests_per_agent_per_s: 5 },
    });
    const get = (headers: Record<string, string>) =>
      host?.app.inject({ method: 'GET', url: '/mesh/blackboard/entries', headers });
    for (let i = 0; i < 20; i += 1) expect((await get(host.agentAuth('mallory')))?.statusCode).toBe(200);
    const refused = await host.app.inject({
      method: 'PUT',
      url: '/mesh/blackboard/entries/notes/x',
      headers: { ...host.agentAuth('mallory'), 'content-type': 'application/json' },
      payload: { value: 1 },
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers.connection).toBe('close');
    expect(refused.json()).toMatchObject({
      error: {
        code: 'MESH_RATE_LIMITED',
        message:
          'agent "mallory" sends the host more than limits.requests_per_agent_per_s (5 requests a second, bursts of 20); retry in 200 ms',
      },
    });
    // Refused before the route ran: nothing was written.
    const read = await host.app.inject({
      method: 'GET',
      url: '/api/blackboard/entries/notes/x',
      headers: host.operatorAuth,
    });
    expect(read.statusCode).toBe(404);
    expect((await get(host.agentAuth('alice')))?.statusCode).toBe(200);
    const operator = await host.app.inject({
      method: 'GET',
      url: '/api/blackboard/entries',
      headers: host.operatorAuth,
    });
    expect(operator.statusCode).toBe(200);
    await host.clock.advance(200);
    expect((await get(host.agentAuth('mallory')))?.statusCode).toBe(200);
  });
});
