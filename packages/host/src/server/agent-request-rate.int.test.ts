import { afterEach, describe, expect, it, vi } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { blackboardFeature } from '../blackboard/index.js';

let host: FeatureTestHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

describe('limits.requests_per_agent_per_s on the host app', () => {
  it('paces an agent past its burst, refuses it past a second of waiting before the route runs, and leaves others and the operator alone', async () => {
    host = await startFeatureTestHost([blackboardFeature()], {
      llm: { providers: { openai: {} } },
      agents: { mallory: { permissions: { blackboard: { read: ['*'], write: ['*'] } } }, alice: {} },
      limits: { requests_per_agent_per_s: 5 },
    });
    const list = (headers: Record<string, string>) =>
      host?.app.inject({ method: 'GET', url: '/mesh/blackboard/entries', headers });
    for (let i = 0; i < 20; i += 1) expect((await list(host.agentAuth('mallory')))?.statusCode).toBe(200);
    // The burst is spent: the next second's worth waits its turn.
    const timers = host.clock.pendingTimers;
    const paced = Array.from({ length: 5 }, () =>
      list(host?.agentAuth('mallory') ?? {})?.then((answer) => answer),
    );
    await vi.waitFor(() => expect(host?.clock.pendingTimers).toBe(timers + 5));
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
          'agent "mallory" sends the host more than limits.requests_per_agent_per_s (5 requests a second, bursts of 20, then a second\'s worth waiting); retry in 200 ms',
      },
    });
    // Refused before the route ran: nothing was written.
    const read = await host.app.inject({
      method: 'GET',
      url: '/api/blackboard/entries/notes/x',
      headers: host.operatorAuth,
    });
    expect(read.statusCode).toBe(404);
    expect((await list(host.agentAuth('alice')))?.statusCode).toBe(200);
    const operator = await host.app.inject({
      method: 'GET',
      url: '/api/blackboard/entries',
      headers: host.operatorAuth,
    });
    expect(operator.statusCode).toBe(200);
    await host.clock.advance(1_000);
    expect((await Promise.all(paced)).map((answer) => answer?.statusCode)).toEqual([200, 200, 200, 200, 200]);
  });
});
