import { createLogger } from '@openlegion/infra/log';
import { describe, expect, it } from 'vitest';
import { startFeatureTestHost } from '../test/feature-test-host.js';
import { scriptedLanes } from '../test/scripted-lanes.js';
import { PUBSUB, pubsubFeature } from './pubsub/index.js';
import { meshEvents } from './workflows/index.js';

describe('workflow events on the mesh pub/sub', () => {
  it('log a publish refused as too large instead of leaving it unhandled (which would end the host)', async () => {
    const lanes = scriptedLanes(() => 'hold');
    const host = await startFeatureTestHost([lanes, pubsubFeature({ lanes })]);
    const lines: string[] = [];
    const logger = createLogger({
      level: 'error',
      destination: { write: (line: string) => lines.push(line) },
    });
    try {
      // A run's on_complete event carries every step's output: an agent's long answer goes past the cap.
      meshEvents(host.service(PUBSUB), logger).publish(
        'runs.done',
        { outputs: { step: 'x'.repeat(70_000) } },
        'workflow:w',
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0] ?? '{}');
      expect(line.msg).toBe('a workflow could not publish');
      expect(line.err.code).toBe('MESH_VALUE_TOO_LARGE');
      expect(host.service(PUBSUB)).toBeDefined();
    } finally {
      await host.stop();
    }
  });
});
