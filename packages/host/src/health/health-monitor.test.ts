import { FakeClock } from '@openlegion/infra/clock';
import { createLogger } from '@openlegion/infra/log';
import type { AgentStatus } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { AgentRegistry, openRegistryStore } from '../registry/index.js';
import { HealthMonitor } from './health-monitor.js';

type ProbeAnswer = Partial<AgentStatus> | 'down';

/** A monitor over a real registry with one ready agent `a`; probes answer what the test says. */
function monitored(options: { maxRestartsPerHour?: number } = {}) {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const registry = new AgentRegistry({ store: openRegistryStore(':memory:'), clock });
  const bringUp = () => {
    registry.register({ name: 'a', runtime: 'process', model: 'm', url: 'http://127.0.0.1:1' });
    registry.markReady('a');
  };
  bringUp();
  let answer: ProbeAnswer = { state: 'ready', progress: 0 };
  const restarts: number[] = [];
  let restartFails = false;
  const monitor = new HealthMonitor({
    registry,
    restart: async () => {
      restarts.push(clock.now());
      if (restartFails) throw new Error('agent never became ready');
      bringUp();
    },
    probe: async () => {
      if (answer === 'down') throw new Error('connection refused');
      return {
        agent: 'a',
        state: 'ready',
        version: '1',
        model: 'm',
        uptime_ms: 1,
        conversations: 0,
        progress: 0,
        ...answer,
      };
    },
    clock,
    logger: createLogger({ level: 'silent' }),
    policy: {
      intervalMs: 2_000,
      failuresBeforeRestart: 3,
      maxRestartsPerHour: options.maxRestartsPerHour ?? 5,
      hungAfterMs: 60_000,
      backoffBaseMs: 1_000,
      backoffMaxMs: 60_000,
    },
  });
  return {
    clock,
    registry,
    monitor,
    restarts,
    answer: (next: ProbeAnswer) => {
      answer = next;
    },
    failRestarts: () => {
      restartFails = true;
    },
  };
}

describe('HealthMonitor', () => {
  it('restarts an agent after three failed probes in a row, within ten seconds of it going down', async () => {
    const { clock, monitor, restarts, answer } = monitored();
    monitor.start();
    await clock.advance(2_000);
    answer('down');
    await clock.advance(4_000);
    expect(restarts).toEqual([]);
    await clock.advance(2_000);
    expect(restarts).toHaveLength(1);
    expect(restarts[0] ?? 0).toBeLessThanOrEqual(Date.parse('2026-01-01T00:00:00Z') + 2_000 + 10_000);
    await monitor.stop();
  });

  it('restarts a busy agent whose progress stands still, not one that makes progress', async () => {
    const { clock, monitor, restarts, answer } = monitored();
    let progress = 0;
    answer({ state: 'busy', progress });
    for (let elapsed = 0; elapsed < 120_000; elapsed += 2_000) {
      answer({ state: 'busy', progress: ++progress });
      await clock.advance(2_000);
      await monitor.probeAll();
    }
    expect(restarts).toEqual([]);
    answer({ state: 'busy', progress });
    for (let elapsed = 0; elapsed <= 60_000; elapsed += 2_000) {
      await clock.advance(2_000);
      await monitor.probeAll();
    }
    expect(restarts).toHaveLength(1);
  });

  it('backs off between restarts, marks the agent failed past the hourly limit, and the operator recovers it', async () => {
    const { clock, monitor, restarts, answer, registry, failRestarts } = monitored({ maxRestartsPerHour: 2 });
    failRestarts();
    answer('down');
    for (let round = 0; round < 3; round++) await monitor.probeAll();
    expect(restarts).toHaveLength(1);
    registry.markFailed('a', new Error('never ready'));
    await monitor.probeAll();
    expect(restarts).toHaveLength(1); // backing off: 1 s
    await clock.advance(1_000);
    await monitor.probeAll();
    expect(restarts).toHaveLength(2);
    await clock.advance(10_000);
    await monitor.probeAll();
    expect(restarts).toHaveLength(2);
    expect(registry.get('a')).toMatchObject({
      state: 'failed',
      lastError: expect.stringContaining('openlegion restart a'),
    });
    await clock.advance(3_600_000);
    await monitor.probeAll();
    expect(restarts).toHaveLength(2);
    await monitor.restartNow('a').catch(() => {});
    expect(restarts).toHaveLength(3);
  });

  it('restarts an agent that exited on its own at once, without waiting for probes', async () => {
    const { monitor, restarts } = monitored();
    monitor.start();
    await monitor.agentExited('a');
    expect(restarts).toHaveLength(1);
    await monitor.stop();
  });

  it('leaves alone an agent that exits while it is being stopped', async () => {
    const { monitor, restarts, registry } = monitored();
    monitor.start();
    registry.markStopping('a');
    await monitor.agentExited('a');
    expect(restarts).toEqual([]);
    await monitor.stop();
  });
});
