import { describe, expect, it } from 'vitest';
import { startFeatureTestHost } from '../../test/feature-test-host.js';
import { TEMPORARY_AGENT_LEFT } from '../fleet/index.js';
import { registryFeature } from '../registry/index.js';
import { LANES } from './index.js';
import { lanesFeature } from './lanes-feature.js';

describe('lanes of a temporary agent that left', () => {
  it('cancels what still waits for it, and only for it', async () => {
    const host = await startFeatureTestHost([registryFeature(), lanesFeature()], {
      llm: { providers: { openai: {} } },
      agents: { 'watcher-0000': {}, lead: {} },
    });
    const lanes = host.service(LANES);
    // Neither agent is ready: the items wait in their lanes.
    await lanes.enqueue({
      agent: 'watcher-0000',
      message: 'an event',
      source: 'pubsub',
      sourceRef: '7',
      idempotencyKey: 'pubsub:1:7',
    });
    await lanes.enqueue({ agent: 'lead', message: 'hello', source: 'cli' });
    host.context.events.emit(TEMPORARY_AGENT_LEFT, { name: 'watcher-0000' });
    expect(lanes.byKey('pubsub:1:7')?.state).toBe('cancelled');
    expect(lanes.queued('watcher-0000')).toBe(0);
    expect(lanes.queued('lead')).toBe(1);
    await host.stop();
  });
});
