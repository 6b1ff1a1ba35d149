import { FakeClock } from '@openlegion/infra/clock';
import { describe, expect, it } from 'vitest';
import { AgentWriteRate, MIN_WRITE_COST_BYTES, WRITE_BURST_SECONDS } from './agent-write-rate.js';

const PER_SECOND = 10_000;

describe('AgentWriteRate', () => {
  it('lets a burst of four seconds through, then refuses with when to retry', () => {
    const clock = new FakeClock(0);
    const rate = new AgentWriteRate(PER_SECOND, () => clock.now());
    for (let i = 0; i < WRITE_BURST_SECONDS * 5; i += 1) rate.take('a', 2_000);
    expect(() => rate.take('a', 2_000)).toThrow(
      expect.objectContaining({
        code: 'MESH_RATE_LIMITED',
        message:
          'agent "a" writes to the blackboard and pub/sub faster than limits.write_bytes_per_agent_per_s (10000 bytes a second, bursts of 40000); retry in 200 ms',
      }),
    );
  });

  it('refills at the rate as time passes, never past the burst', async () => {
    const clock = new FakeClock(0);
    const rate = new AgentWriteRate(PER_SECOND, () => clock.now());
    rate.take('a', PER_SECOND * WRITE_BURST_SECONDS);
    expect(() => rate.take('a', 5_000)).toThrow(expect.objectContaining({ code: 'MESH_RATE_LIMITED' }));
    await clock.advance(500);
    rate.take('a', 5_000);
    await clock.advance(3_600_000);
    rate.take('a', PER_SECOND * WRITE_BURST_SECONDS);
    expect(() => rate.take('a', 1_000)).toThrow(expect.objectContaining({ code: 'MESH_RATE_LIMITED' }));
  });

  it('counts a tiny write as a commit costs, and keeps each agent to its own rate', () => {
    const clock = new FakeClock(0);
    const rate = new AgentWriteRate(PER_SECOND, () => clock.now());
    const fits = (PER_SECOND * WRITE_BURST_SECONDS) / MIN_WRITE_COST_BYTES;
    for (let i = 0; i < Math.floor(fits); i += 1) rate.take('a', 1);
    expect(() => rate.take('a', 1)).toThrow(expect.objectContaining({ code: 'MESH_RATE_LIMITED' }));
    expect(() => rate.take('b', 1)).not.toThrow();
  });
});
