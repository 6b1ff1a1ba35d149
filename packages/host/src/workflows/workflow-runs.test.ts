import { describe, expect, it } from 'vitest';
import { startWorkflowTestHost, statesOf, workflowDir } from '../../test/workflow-test-host.js';

const DIAMOND = `
name: diamond
inputs:
  topic: { type: string }
steps:
  - { id: research, agent: researcher, task: "research \${inputs.topic}" }
  - { id: write, agent: writer, task: "write from \${steps.research.output}", depends_on: research }
  - { id: check, agent: checker, task: "check \${steps.research.output}", depends_on: research }
  - id: publish
    agent: writer
    task: "publish \${steps.write.output} / \${steps.check.output}"
    depends_on: [write, check]
    save_to: articles/latest
on_complete:
  publish: articles.done
  notify: "\${inputs.topic}: \${steps.publish.output}"
`;

describe('workflow runs', () => {
  it('runs the branches of a diamond in parallel and joins them', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({ 'diamond.yaml': DIAMOND }),
      respond: (item) => ({
        text: `[${item.message}]`,
        afterMs: item.message.startsWith('research') ? 100 : 1_000,
      }),
    });
    const started = await host.startRun('diamond', { topic: 'tides' });
    await host.advance(100);
    expect(
      host.lanes
        .running()
        .map((item) => item.agent)
        .sort(),
    ).toEqual(['checker', 'writer']);
    await host.advance(2_000); // both branches, then publish
    const run = await host.view(started.id);
    expect(run.state).toBe('succeeded');
    expect(host.lanes.items().at(-1)?.message).toBe(
      'publish [write from [research tides]] / [check [research tides]]',
    );
    expect(host.blackboard.get('articles/latest')).toBe(
      '[publish [write from [research tides]] / [check [research tides]]]',
    );
    expect(host.blackboard.entries.get('articles/latest')?.by).toBe('workflow:diamond');
    expect(host.events.published).toMatchObject([
      { topic: 'articles.done', payload: { state: 'succeeded', run: run.id } },
    ]);
    expect(host.notified).toEqual([`tides: ${host.blackboard.get('articles/latest')}`]);
    expect(run.steps.find((step) => step.id === 'write')).toMatchObject({
      duration_ms: 1_000,
      cost_usd: null,
      attempts: 1,
    });
    // The LLM-cost feature adds what each of a step's lane items cost; the engine never overwrites it.
    const repo = host.workflows.repository();
    expect(repo.addCost(`${run.id}/write/-1`, 0.25) && repo.addCost(`${run.id}/write/-1`, 0.5)).toBe(true);
    expect(repo.addCost(`${run.id}/nope/-1`, 1)).toBe(false);
    expect((await host.view(run.id)).steps.find((step) => step.id === 'write')?.cost_usd).toBe(0.75);
    await host.stop();
  });

  it('skips a branch whose when does not hold, and still runs the join', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({
        'w.yaml': `
name: w
inputs: { strict: { type: boolean, default: false } }
steps:
  - { id: draft, agent: writer, task: draft }
  - { id: check, agent: checker, task: check, depends_on: draft, when: "inputs.strict or steps.draft.output contains 'claim'" }
  - { id: done, agent: writer, task: "status \${steps.check.status} [\${steps.check.output}]", depends_on: [check] }
`,
      }),
      respond: () => ({ text: 'a calm text' }),
    });
    const run = await host.view((await host.startRun('w')).id);
    expect(statesOf(run)).toEqual({ draft: 'done', check: 'skipped', done: 'done' });
    expect(host.lanes.items().map((item) => item.message)).toEqual(['draft', 'status skipped []']);
    await host.stop();
  });

  it('retries with backoff on its own agent, then hands the step to the fallback agent', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({
        'w.yaml': `
name: w
steps:
  - { id: a, agent: writer, task: go, max_retries: 1, backoff: 10s, on_failure: { fallback: backup } }
`,
      }),
      respond: (item) =>
        item.agent === 'writer' ? { error: 'AGENT_LLM_FAILED', message: 'provider down' } : { text: 'saved' },
    });
    const { id } = await host.startRun('w');
    expect((await host.view(id)).steps[0]).toMatchObject({ state: 'retry_wait', attempts: 1 });
    await host.advance(9_999);
    expect(host.lanes.items()).toHaveLength(1);
    await host.advance(1);
    const run = await host.view(id);
    expect(host.lanes.items().map((item) => [item.agent, item.state])).toEqual([
      ['writer', 'failed'],
      ['writer', 'failed'],
      ['backup', 'done'],
    ]);
    expect(run.state).toBe('succeeded');
    expect(run.steps[0]).toMatchObject({
      agent: 'backup',
      attempts: 3,
      output_preview: 'saved',
      error: null,
    });
    await host.stop();
  });

  it('fans out over five elements, never more than two at once, and collects the outputs in order', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({
        'w.yaml': `
name: w
inputs: { sources: { type: list } }
steps:
  - { id: read, agent: researcher, task: "read \${item} (\${index})", for_each: inputs.sources, concurrency: 2 }
  - { id: sum, agent: writer, task: "sum \${steps.read.output}", depends_on: read }
`,
      }),
      respond: (item) => ({ text: item.message.toUpperCase(), afterMs: 1_000 }),
    });
    const { id } = await host.startRun('w', { sources: 'a,b,c,d,e' });
    expect(host.lanes.running()).toHaveLength(2);
    expect((await host.view(id)).steps[0]?.items).toEqual({ total: 5, done: 0, running: 2, failed: 0 });
    await host.advance(3_000);
    await host.advance(1_000);
    const run = await host.view(id);
    expect(run.state).toBe('succeeded');
    expect(host.lanes.maxRunning()).toBe(2);
    expect(JSON.parse(host.lanes.items().at(-1)?.message.slice('sum '.length) ?? '')).toEqual([
      'READ A (0)',
      'READ B (1)',
      'READ C (2)',
      'READ D (3)',
      'READ E (4)',
    ]);
    await host.stop();
  });

  it('holds an approval gate until approved, with the note as its output', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({
        'w.yaml': `
name: w
steps:
  - { id: draft, agent: writer, task: draft }
  - { id: approve, requires_approval: true, depends_on: draft }
  - { id: publish, agent: writer, task: "publish (\${steps.approve.output})", depends_on: approve }
`,
      }),
    });
    const { id } = await host.startRun('w');
    expect(statesOf(await host.view(id))).toEqual({
      draft: 'done',
      approve: 'waiting_approval',
      publish: 'pending',
    });
    expect(host.notified[0]).toContain(`openlegion approve ${id}:approve`);
    const waiting = {
      kind: 'workflow_step',
      id: `${id}:approve`,
      run: id,
      workflow: 'w',
      step: 'approve',
      waiting_since: host.clock.now(),
    };
    expect(host.notices[0]?.approval).toEqual(waiting);
    const listed = await host.app.inject({ url: '/api/workflows/approvals', headers: host.operatorAuth });
    expect(listed.json()).toEqual({ approvals: [waiting] });
    // The host's one list holds it too.
    const all = await host.app.inject({ url: '/api/approvals', headers: host.operatorAuth });
    expect(all.json()).toEqual({ approvals: [waiting] });
    await host.advance(3_600_000);
    expect(host.lanes.items()).toHaveLength(1);
    const approved = await host.post(`/api/workflows/runs/${id}/steps/approve/approve`, { note: 'ship it' });
    expect(approved.statusCode).toBe(200);
    await host.settle();
    expect((await host.view(id)).state).toBe('succeeded');
    expect(host.lanes.items().at(-1)?.message).toBe('publish (ship it)');
    const after = await host.app.inject({ url: '/api/workflows/approvals', headers: host.operatorAuth });
    expect(after.json()).toEqual({ approvals: [] });
    const again = await host.post(`/api/workflows/runs/${id}/steps/approve/approve`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('WORKFLOW_RUN_FINISHED');
    await host.stop();
  });

  it('stops a run on reject, and refuses to approve a step that is not waiting', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({
        'w.yaml': `
name: w
steps:
  - { id: draft, agent: writer, task: draft }
  - { id: publish, agent: writer, task: publish, depends_on: draft, requires_approval: true }
`,
      }),
      respond: (item) => (item.message === 'draft' ? { text: 'd', afterMs: 1_000 } : { text: 'p' }),
    });
    const { id } = await host.startRun('w');
    const early = await host.post(`/api/workflows/runs/${id}/steps/publish/approve`);
    expect(early.statusCode).toBe(409);
    expect(early.json().error).toMatchObject({
      code: 'WORKFLOW_NOT_WAITING',
      message: expect.stringContaining('is pending'),
    });
    expect((await host.post(`/api/workflows/runs/${id}/steps/ghost/approve`)).json().error.code).toBe(
      'WORKFLOW_NOT_WAITING',
    );
    await host.advance(1_000);
    const rejected = await host.post(`/api/workflows/runs/${id}/steps/publish/reject`, { note: 'off-brand' });
    const run = rejected.json().run;
    expect(run).toMatchObject({
      state: 'rejected',
      error: { code: 'WORKFLOW_REJECTED', message: 'step publish was rejected: off-brand' },
    });
    expect(statesOf(run)).toEqual({ draft: 'done', publish: 'rejected' });
    expect(host.lanes.items().map((item) => item.message)).toEqual(['draft']);
    await host.stop();
  });

  it('is decided by id through the one list of approvals; an id nothing waits under is APPROVAL_UNKNOWN', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({
        'w.yaml': `
name: w
steps:
  - { id: draft, agent: writer, task: draft }
  - { id: publish, agent: writer, task: publish, depends_on: draft, requires_approval: true }
`,
      }),
    });
    const { id } = await host.startRun('w');
    const early = await host.post(`/api/approvals/${encodeURIComponent(`${id}:ghost`)}/approve`);
    expect(early.statusCode).toBe(404);
    expect(early.json().error).toEqual({
      code: 'APPROVAL_UNKNOWN',
      message: `nothing waits for approval under "${id}:ghost" (list them: openlegion approvals)`,
      retryable: false,
      details: { id: `${id}:ghost` },
    });
    const approved = await host.post(`/api/approvals/${encodeURIComponent(`${id}:publish`)}/approve`, {
      note: 'go',
    });
    expect(approved.json()).toMatchObject({
      decision: 'approve',
      approval: { kind: 'workflow_step', step: 'publish' },
    });
    await host.settle();
    expect((await host.view(id)).state).toBe('succeeded');
    expect(host.lanes.items().map((item) => item.message)).toEqual(['draft', 'publish']);
    await host.stop();
  });
});
