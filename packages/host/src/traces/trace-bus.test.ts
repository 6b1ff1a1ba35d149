import { describe, expect, it } from 'vitest';
import { startFeatureTestHost } from '../../test/feature-test-host.js';
import { EGRESS_DECIDED } from '../egress/index.js';
import { TRACE_LOG, tracesFeature } from './index.js';

describe('traces, alone with the bus', () => {
  it("record the egress proxy's decisions made under a trace, and only those", async () => {
    const host = await startFeatureTestHost([tracesFeature()]);
    host.context.events.emit(EGRESS_DECIDED, {
      agent: 'a',
      host: 'example.org',
      port: 443,
      allowed: false,
      reason: 'not in the allowlist',
      traceId: 'trace-1',
    });
    host.context.events.emit(EGRESS_DECIDED, { agent: 'a', host: 'example.org', port: 443, allowed: true });
    expect(host.service(TRACE_LOG).events('trace-1')).toMatchObject([
      {
        hop: 'egress refused',
        agent: 'a',
        detail: { host: 'example.org', port: 443, reason: 'not in the allowlist' },
      },
    ]);
    expect(host.service(TRACE_LOG).recent(10)).toHaveLength(1);
    await host.stop();
  });
});
