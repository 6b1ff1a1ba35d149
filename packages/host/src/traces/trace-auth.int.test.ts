import type { MeshConfigInput } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { blackboardFeature } from '../blackboard/index.js';
import type { TraceLog } from './trace-log.js';
import { TRACE_LOG, tracesFeature } from './traces-feature.js';

const config: MeshConfigInput = {
  llm: { providers: { openai: {} } },
  agents: { a: { permissions: { blackboard: { read: ['*'], write: ['*'] } } } },
  limits: { trace_rows_per_agent: 100 },
};

const hosts: FeatureTestHost[] = [];
async function start(): Promise<{ host: FeatureTestHost; traces: TraceLog }> {
  const host = await startFeatureTestHost([tracesFeature(), blackboardFeature()], config);
  hosts.push(host);
  return { host, traces: host.service(TRACE_LOG) };
}
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()));
});

describe('trace hops', () => {
  it('are not written by requests that did not authenticate: a 401, a 403 and a 404 leave none', async () => {
    const { host, traces } = await start();
    const unauthenticated = await host.app.inject({
      url: '/mesh/blackboard/entries/k',
      headers: { 'x-trace-id': 'forged-401' },
    });
    expect(unauthenticated.statusCode).toBe(401);
    const wrongToken = await host.app.inject({
      url: '/mesh/blackboard/entries/k',
      headers: { authorization: 'Bearer not-a-token', 'x-trace-id': 'forged-401b' },
    });
    expect(wrongToken.statusCode).toBe(401);
    const forbidden = await host.app.inject({
      url: '/api/blackboard/entries/k',
      headers: { ...host.agentAuth('a'), 'x-trace-id': 'forged-403' },
    });
    expect(forbidden.statusCode).toBe(403);
    const unknown = await host.app.inject({
      url: `/no/such/route/${'z'.repeat(4_000)}`,
      headers: { ...host.agentAuth('a'), 'x-trace-id': 'forged-404' },
    });
    expect(unknown.statusCode).toBe(404);
    for (const id of ['forged-401', 'forged-401b', 'forged-403', 'forged-404'])
      expect(traces.events(id)).toEqual([]);
  });

  it('name the route pattern of an authenticated call, never its raw URL', async () => {
    const { host, traces } = await start();
    const read = await host.app.inject({
      url: '/mesh/blackboard/entries/some/long/key?x=1',
      headers: { ...host.agentAuth('a'), 'x-trace-id': 'trace-ok' },
    });
    expect(read.statusCode).toBe(404);
    expect(traces.events('trace-ok')).toEqual([
      {
        trace_id: 'trace-ok',
        at: host.clock.now(),
        hop: 'http GET /mesh/blackboard/entries/*',
        agent: 'a',
        detail: { status: 404, ms: expect.any(Number) },
      },
    ]);
  });

  it("keep an agent's hops near limits.trace_rows_per_agent, egress decisions included", async () => {
    const { host, traces } = await start();
    for (let i = 0; i < 150; i++) {
      await host.app.inject({
        url: '/mesh/blackboard/entries/k',
        headers: { ...host.agentAuth('a'), 'x-trace-id': `t-${i}` },
      });
    }
    for (let i = 0; i < 150; i++)
      traces.record({
        trace_id: `e-${i}`,
        hop: 'egress allowed',
        agent: 'a',
        detail: { host: 'x.test' },
        at: host.clock.now(),
      });
    traces.record({ trace_id: 'lane', hop: 'lane.queued', agent: 'other', detail: {}, at: host.clock.now() });
    const rows = (agent: string) =>
      host.context.db
        .prepare<[string], { n: number }>('SELECT count(*) AS n FROM trace_events WHERE agent = ?')
        .get(agent)?.n;
    // Pruned every 100/16 hops: never more than 100 + 7.
    expect(rows('a')).toBeGreaterThanOrEqual(100);
    expect(rows('a')).toBeLessThanOrEqual(107);
    expect(rows('other')).toBe(1);
    expect(traces.events('e-149')).toHaveLength(1);
    expect(traces.events('t-0')).toEqual([]);
  });
});
