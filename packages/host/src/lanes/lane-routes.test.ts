import { describe, expect, it } from 'vitest';
import { FakeAgentRuntime } from '../../test/fake-agent-runtime.js';
import { startFeatureTestHost } from '../../test/feature-test-host.js';
import { TokenRegistry } from '../auth/index.js';
import { fleetFeature } from '../fleet/index.js';
import { createAgentClient, lanesFeature } from './index.js';

describe('the lane routes', () => {
  it('answer 404 MESH_LANE_ITEM_UNKNOWN to the cancel of an item that does not exist (a 500 the route fuzzing found)', async () => {
    const tokens = new TokenRegistry();
    const fleet = fleetFeature({ runtime: new FakeAgentRuntime(), tokens, beforeLaunch: async () => {} });
    const lanes = lanesFeature({ registry: fleet.registry, tokens, agentClient: createAgentClient() });
    const host = await startFeatureTestHost([lanes, fleet], undefined, { tokens, start: false });
    const answer = await host.app.inject({
      method: 'POST',
      url: '/api/lanes/42/cancel',
      headers: host.operatorAuth,
    });
    expect(answer.statusCode).toBe(404);
    expect(answer.json().error).toMatchObject({
      code: 'MESH_LANE_ITEM_UNKNOWN',
      message: 'no lane item 42; GET /api/lanes lists them',
    });
    await host.stop();
  });
});
