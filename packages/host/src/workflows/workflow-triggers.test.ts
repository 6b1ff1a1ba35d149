import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeClock } from '@openlegion/infra/clock';
import type { WorkflowRunSummary } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { startWorkflowTestHost, type WorkflowTestHost, workflowDir } from '../../test/workflow-test-host.js';

const runsOf = async (host: WorkflowTestHost): Promise<WorkflowRunSummary[]> =>
  (await host.app.inject({ method: 'GET', url: '/api/workflows/runs', headers: host.operatorAuth })).json()
    .runs;

const DAILY = `
name: daily
inputs: { scope: { type: string, default: all } }
trigger: { cron: "30 9 * * *", timezone: UTC }
steps: [{ id: digest, agent: researcher, task: "digest of \${inputs.scope}" }]
`;

describe('workflow triggers', () => {
  it('starts a run on its cron schedule, once per slot', async () => {
    const host = await startWorkflowTestHost({ dir: workflowDir({ 'daily.yaml': DAILY }) });
    await host.clock.advance(9 * 3_600_000 + 29 * 60_000);
    await host.settle();
    expect(await runsOf(host)).toHaveLength(0);
    await host.clock.advance(60_000);
    await host.settle();
    const runs = await runsOf(host);
    expect(runs).toMatchObject([{ workflow: 'daily', trigger: 'cron', state: 'succeeded' }]);
    expect(host.lanes.items().map((item) => item.message)).toEqual(['digest of all']);
    await host.stop();
  });

  it('runs a slot missed while the host was down once, when it is back', async () => {
    const dbFile = path.join(mkdtempSync(path.join(tmpdir(), 'wf-cron-')), 'mesh.db');
    const dir = workflowDir({ 'daily.yaml': DAILY });
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const before = await startWorkflowTestHost({ dir, dbFile, clock });
    await before.stop();
    await clock.advance(3 * 86_400_000); // three slots missed
    const after = await startWorkflowTestHost({ dir, dbFile, clock });
    await after.settle();
    expect(await runsOf(after)).toHaveLength(1);
    await after.stop();
  });

  it('starts a run for each event on its topic, with the payload as trigger and inputs', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({
        'on-news.yaml': `
name: on-news
inputs: { topic: { type: string } }
trigger: { topic: "news.*" }
steps: [{ id: read, agent: researcher, task: "read \${inputs.topic} at \${trigger.payload.url} (\${trigger.topic})" }]
`,
      }),
    });
    host.events.publish(
      'news.ai',
      { topic: 'agents', url: 'https://example.org/a', extra: true },
      'agent:scout',
    );
    host.events.publish('sport.ai', { topic: 'ignored' }, 'agent:scout');
    host.events.publish('news.tech', { url: 'https://example.org/b' }, 'agent:scout'); // lacks the topic input
    await host.settle();
    expect(host.lanes.items().map((item) => item.message)).toEqual([
      'read agents at https://example.org/a (news.ai)',
    ]);
    expect(await runsOf(host)).toMatchObject([{ trigger: 'topic news.ai', state: 'succeeded' }]);
    await host.stop();
  });
});
