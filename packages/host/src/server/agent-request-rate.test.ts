import { FakeClock } from '@openlegion/infra/clock';
import { describe, expect, it } from 'vitest';
import { AgentRequestRate, REQUEST_BURST_SECONDS } from './agent-request-rate.js';

describe('AgentRequestRate', () => {
  it('lets a burst of four seconds through at once, paces the next second of requests, then refuses with when to retry', async () => {
    const clock = new FakeClock(0);
    const rate = new AgentRequestRate(10, clock);
    for (let i = 0; i < 10 * REQUEST_BURST_SECONDS; i += 1)
      expect(await rate.admit('mallory')).toBeUndefined();
    const settled: number[] = [];
    const waiting = Array.from({ length: 10 }, (_, i) => rate.admit('mallory').then(() => settled.push(i)));
    expect(await rate.admit('mallory')).toMatchObject({
      code: 'MESH_RATE_LIMITED',
      status: 429,
      message:
        'agent "mallory" sends the host more than limits.requests_per_agent_per_s (10 requests a second, bursts of 40, then a second\'s worth waiting); retry in 100 ms',
      details: { retry_after_ms: 100, field: 'limits.requests_per_agent_per_s' },
    });
    expect(await rate.admit('alice')).toBeUndefined();
    // Each waits its turn: one more every tenth of a second.
    await clock.advance(100);
    expect(settled).toEqual([0]);
    await clock.advance(400);
    expect(settled).toEqual([0, 1, 2, 3, 4]);
    await clock.advance(500);
    await Promise.all(waiting);
    expect(settled).toHaveLength(10);
  });
});
