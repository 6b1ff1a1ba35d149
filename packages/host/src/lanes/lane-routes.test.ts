import { describe, expect, it } from 'vitest';
import { startFeatureTestHost } from '../../test/feature-test-host.js';
import { registryFeature } from '../registry/index.js';
import { lanesFeature } from './index.js';

describe('the lane routes', () => {
  it('answer 404 MESH_LANE_ITEM_UNKNOWN to the cancel of an item that does not exist (a 500 the route fuzzing found)', async () => {
    const host = await startFeatureTestHost([registryFeature(), lanesFeature()], undefined, { start: false });
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
