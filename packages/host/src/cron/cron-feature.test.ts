import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeClock } from '@openlegion/infra/clock';
import type { MeshConfigInput } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { startFeatureTestHost } from '../../test/feature-test-host.js';
import type { LaneItem, LaneRequest, Lanes } from '../lanes/index.js';
import { cronFeature } from './index.js';

/** Lanes that record what cron hands them, and let a test deliver a result back. */
function recordingLanes() {
  const requests: LaneRequest[] = [];
  const deliverers = new Map<string, (item: LaneItem) => Promise<void>>();
  const lanes = {
    enqueue: async (request: LaneRequest) => {
      requests.push(request);
      return { item: { id: requests.length } as LaneItem, outcome: 'queued' as const };
    },
    deliverTo: (source: string, handler: (item: LaneItem) => Promise<void>) =>
      void deliverers.set(source, handler),
  } as unknown as Lanes;
  return {
    lanes,
    requests,
    deliver: (item: Partial<LaneItem>) => deliverers.get('cron')?.(item as LaneItem),
  };
}

const meshWith = (cron: unknown[]): MeshConfigInput => ({
  llm: { providers: { openai: {} } },
  agents: { a: { cron: cron as never }, b: {} },
});

describe('cron', () => {
  it('runs `every 5s` on its first tick, then once every five seconds', async () => {
    const { lanes, requests } = recordingLanes();
    const host = await startFeatureTestHost(
      [cronFeature({ lanes })],
      meshWith([{ schedule: 'every 5s', message: 'check' }]),
    );
    await host.clock.advance(0);
    expect(requests.map((request) => request.message)).toEqual(['check']);
    await host.clock.advance(4_999);
    expect(requests).toHaveLength(1);
    await host.clock.advance(1);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ agent: 'a', kind: 'chat', source: 'cron', sourceRef: 'a#0' });
    expect(requests[0]?.idempotencyKey).not.toBe(requests[1]?.idempotencyKey);
    await host.stop();
  });

  it('hands heartbeat jobs to the lane as heartbeats and records a silent beat as silent', async () => {
    const { lanes, requests, deliver } = recordingLanes();
    const host = await startFeatureTestHost(
      [cronFeature({ lanes })],
      meshWith([{ schedule: 'every 1m', heartbeat: true }]),
    );
    await host.clock.advance(0);
    expect(requests[0]).toMatchObject({ kind: 'heartbeat', agent: 'a' });
    await deliver({ sourceRef: 'a#0', state: 'done', resultText: '__SILENT__' });
    const list = await host.app.inject({ method: 'GET', url: '/api/cron', headers: host.operatorAuth });
    expect(list.json().jobs[0]).toMatchObject({
      id: 'a#0',
      heartbeat: true,
      lastResult: '(silent)',
      runs: 1,
    });
    await host.stop();
  });

  it('runs a job missed while the host was down once, not once per missed slot', async () => {
    const dbFile = path.join(mkdtempSync(path.join(tmpdir(), 'cron-')), 'mesh.db');
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const config = meshWith([{ schedule: 'every 5m' }]);
    const first = recordingLanes();
    const before = await startFeatureTestHost([cronFeature({ lanes: first.lanes })], config, {
      dbFile,
      clock,
    });
    await clock.advance(0);
    expect(first.requests).toHaveLength(1);
    await before.stop();
    await clock.advance(3_600_000); // an hour down: twelve slots missed
    const second = recordingLanes();
    const after = await startFeatureTestHost([cronFeature({ lanes: second.lanes })], config, {
      dbFile,
      clock,
    });
    await clock.advance(0);
    expect(second.requests).toHaveLength(1);
    await clock.advance(299_999);
    expect(second.requests).toHaveLength(1);
    await clock.advance(1);
    expect(second.requests).toHaveLength(2);
    await after.stop();
  });

  it('refuses a bad schedule in mesh.yaml naming the field', async () => {
    const { lanes } = recordingLanes();
    await expect(
      startFeatureTestHost([cronFeature({ lanes })], meshWith([{ schedule: '61 * * * *' }])),
    ).rejects.toThrow(/agents\.a\.cron\[0\]\.schedule: "61 \* \* \* \*": Invalid value for minute: 61/);
  });

  it('lets the operator pause, resume and run a job', async () => {
    const { lanes, requests } = recordingLanes();
    const host = await startFeatureTestHost([cronFeature({ lanes })], meshWith([{ schedule: 'every 10s' }]));
    await host.clock.advance(0);
    const post = (url: string) => host.app.inject({ method: 'POST', url, headers: host.operatorAuth });
    expect((await post('/api/cron/a%230/pause')).json().job.paused).toBe(true);
    await host.clock.advance(60_000);
    expect(requests).toHaveLength(1);
    await post('/api/cron/a%230/run');
    expect(requests).toHaveLength(2);
    await post('/api/cron/a%230/resume');
    await host.clock.advance(0);
    expect(requests).toHaveLength(3);
    expect((await post('/api/cron/nope/run')).statusCode).toBe(404);
    await host.stop();
  });

  it("lets an agent schedule its own jobs, with schedule errors naming the field, and not touch another's", async () => {
    const { lanes, requests } = recordingLanes();
    const host = await startFeatureTestHost([cronFeature({ lanes })], meshWith([]));
    const asA = { ...host.agentAuth('a'), 'content-type': 'application/json' };
    const bad = await host.app.inject({
      method: 'POST',
      url: '/mesh/cron',
      headers: asA,
      payload: { schedule: '*/0 * * * *' },
    });
    expect(bad.json().error).toMatchObject({
      code: 'REQUEST_INVALID',
      message: expect.stringContaining('body.schedule'),
    });
    const made = await host.app.inject({
      method: 'POST',
      url: '/mesh/cron',
      headers: asA,
      payload: { schedule: 'every 1h', message: 'summarise the day' },
    });
    expect(made.statusCode).toBe(201);
    const { id } = made.json().job;
    await host.clock.advance(0);
    expect(requests[0]).toMatchObject({ agent: 'a', message: 'summarise the day' });
    const byB = await host.app.inject({
      method: 'DELETE',
      url: `/mesh/cron/${encodeURIComponent(id)}`,
      headers: host.agentAuth('b'),
    });
    expect(byB.statusCode).toBe(404);
    await host.stop();
  });

  it('refuses an agent removing a job mesh.yaml gave it (its heartbeat is the operator\'s)', async () => {
    const { lanes } = recordingLanes();
    const host = await startFeatureTestHost(
      [cronFeature({ lanes })],
      meshWith([{ schedule: 'every 1m', heartbeat: true }]),
    );
    const refused = await host.app.inject({
      method: 'DELETE',
      url: `/mesh/cron/${encodeURIComponent('a#0')}`,
      headers: host.agentAuth('a'),
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({
      code: 'MESH_FORBIDDEN',
      message: 'cron job "a#0" comes from mesh.yaml; agent "a" may remove only the jobs it added',
    });
    const listed = await host.app.inject({ method: 'GET', url: '/mesh/cron', headers: host.agentAuth('a') });
    expect(listed.json().jobs.map((job: { id: string }) => job.id)).toEqual(['a#0']);
    await host.stop();
  });
});
