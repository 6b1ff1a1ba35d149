import { FakeClock } from '@openlegion/infra/clock';
import { describe, expect, it } from 'vitest';
import { AgentRequestRate, REQUEST_BURST_SECONDS } from './agent-request-rate.js';

describe('AgentRequestRate', () => {
  it('lets a burst of four seconds of requests through, then refuses each with when to retry', async () => {
    const clock = new FakeClock(0);
    const rate = new AgentRequestRate(10, () => clock.now());
    for (let i = 0; i < 10 * REQUEST_BURST_SECONDS; i += 1) expect(rate.refusal('mallory')).toBeUndefined();
    expect(rate.refusal('mallory')).toMatchObject({
      code: 'MESH_RATE_LIMITED',
      status: 429,
      message:
        'agent "mallory" sends the host more than limits.requests_per_agent_per_s (10 requests a second, bursts of 40); retry in 100 ms',
      details: { retry_after_ms: 100, field: 'limits.requests_per_agent_per_s' },
    });
    expect(rate.refusal('alice')).toBeUndefined();
    await clock.advance(100);
    expect(rate.refusal('mallory')).toBeUndefined();
    expect(rate.refusal('mallory')?.code).toBe('MESH_RATE_LIMITED');
  });
});
