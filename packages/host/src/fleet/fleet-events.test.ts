import { describe, expect, it } from 'vitest';
import { FakeAgentRuntime } from '../../test/fake-agent-runtime.js';
import { startFeatureTestHost } from '../../test/feature-test-host.js';
import { AGENT_REGISTRY, AGENT_STATE_CHANGED, registryFeature } from '../registry/index.js';
import { fleetFeature } from './index.js';

describe('the fleet, alone with the bus', () => {
  it("tells the bus of every move of an agent's lifecycle", async () => {
    const fleet = fleetFeature({
      runtime: new FakeAgentRuntime(),
      beforeLaunch: async () => {},
    });
    const host = await startFeatureTestHost([registryFeature(), fleet], undefined, { start: false });
    const moves: string[] = [];
    host.context.events.on(AGENT_STATE_CHANGED, (record) => moves.push(`${record.name} ${record.state}`));
    const registry = host.service(AGENT_REGISTRY);
    registry.register({
      name: 'a',
      runtime: 'process',
      model: 'openai/gpt-4.1-mini',
      url: 'http://127.0.0.1:1',
    });
    registry.markReady('a');
    registry.markStopping('a');
    registry.markStopped('a');
    expect(moves).toEqual(['a starting', 'a ready', 'a stopping', 'a stopped']);
    await host.stop();
  });
});
