import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startWorkflowTestHost, statesOf, workflowDir } from '../../test/workflow-test-host.js';

describe('workflow faults', () => {
  it('fails a run visibly when a condition cannot be evaluated, or skips the step when told to', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({
        'w.yaml': `
name: w
inputs: { tags: { type: list, default: [a] } }
steps:
  - { id: soft, agent: writer, task: t, when: "inputs.tags > 1", on_failure: skip }
  - { id: hard, agent: writer, task: t, depends_on: soft, when: "inputs.tags contains inputs.tags or inputs.tags > 2" }
`,
      }),
    });
    const run = await host.view((await host.startRun('w')).id);
    expect(run).toMatchObject({ state: 'failed', error: { code: 'WORKFLOW_EXPRESSION_FAILED' } });
    expect(run.steps[0]).toMatchObject({
      state: 'skipped',
      error: { message: 'step soft when: cannot order a list > number 1' },
    });
    expect(run.steps[1]?.state).toBe('failed');
    expect(host.lanes.items()).toHaveLength(0);
    await host.stop();
  });

  it('lets a step wait for its stopped agent, then fails it under its policy (here: the fallback agent)', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({
        'w.yaml': `
name: w
steps:
  - { id: a, agent: writer, task: t, on_failure: { fallback: backup } }
  - { id: b, agent: checker, task: t, depends_on: a }
`,
      }),
      agentWaitMs: 60_000,
    });
    host.lanes.stopAgent('writer');
    host.lanes.stopAgent('checker');
    const { id } = await host.startRun('w');
    expect((await host.view(id)).steps[0]).toMatchObject({
      state: 'waiting_agent',
      error: { code: 'AGENT_NOT_READY' },
    });
    await host.advance(59_000);
    expect(host.lanes.items()).toHaveLength(0);
    await host.advance(1_000);
    expect((await host.view(id)).steps[0]).toMatchObject({ state: 'done', agent: 'backup' });
    // The checker is back before its wait runs out: the step goes on.
    await host.advance(30_000);
    host.lanes.startAgent('checker');
    await host.advance(5_000);
    expect((await host.view(id)).state).toBe('succeeded');
    await host.stop();
  });

  it('fails the run, naming the agent and the wait, when a stopped agent has no fallback', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({ 'w.yaml': 'name: w\nsteps: [{ id: a, agent: writer, task: t, timeout: 20s }]\n' }),
    });
    host.lanes.stopAgent('writer');
    const { id } = await host.startRun('w');
    await host.advance(20_000);
    const run = await host.view(id);
    expect(run).toMatchObject({ state: 'failed', error: { code: 'AGENT_NOT_READY' } });
    expect(run.error?.message).toMatch(/writer" is stopped, not taking work; the step waited 20s for it/);
    await host.stop();
  });

  it('cancels a fan-out: running elements are cancelled in their lanes, waiting ones never start', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({
        'w.yaml': `
name: w
steps:
  - { id: each, agent: researcher, task: "\${item}", for_each: "['a', 'b', 'c', 'd']", concurrency: 2 }
`,
      }),
      respond: () => 'hold',
    });
    const { id } = await host.startRun('w');
    const running = host.lanes.running().map((item) => item.id);
    expect(running).toHaveLength(2);
    const cancelled = await host.post(`/api/workflows/runs/${id}/cancel`);
    expect(cancelled.json().run).toMatchObject({ state: 'cancelled', steps: [{ state: 'cancelled' }] });
    expect(host.lanes.cancelled.sort()).toEqual(running.sort());
    await host.advance(10_000);
    expect(host.lanes.items()).toHaveLength(2);
    expect((await host.post(`/api/workflows/runs/${id}/cancel`)).json().error.code).toBe(
      'WORKFLOW_RUN_FINISHED',
    );
    expect((await host.post('/api/workflows/runs/nope/cancel')).statusCode).toBe(404);
    await host.stop();
  });

  it('keeps the version a run started with when its file changes mid-run', async () => {
    const dir = workflowDir({
      'w.yaml':
        'name: w\nsteps:\n  - { id: a, agent: writer, task: first version }\n  - { id: b, agent: writer, task: b1, depends_on: a }\n',
    });
    const host = await startWorkflowTestHost({ dir, respond: () => ({ text: 'ok', afterMs: 1_000 }) });
    const first = await host.startRun('w');
    writeFileSync(
      path.join(dir, 'w.yaml'),
      'name: w\nsteps:\n  - { id: a, agent: writer, task: second version }\n  - { id: b, agent: writer, task: b2, depends_on: a }\n',
    );
    const second = await host.startRun('w');
    await host.advance(2_000);
    const messages = (run: string) =>
      host.lanes
        .items()
        .filter((item) => item.sourceRef?.startsWith(run))
        .map((item) => item.message);
    expect(messages(first.id)).toEqual(['first version', 'b1']);
    expect(messages(second.id)).toEqual(['second version', 'b2']);
    await host.stop();
  });

  it('checks JSON output against the step schema and retries an answer that does not match', async () => {
    let tries = 0;
    const host = await startWorkflowTestHost({
      dir: workflowDir({
        'w.yaml': `
name: w
steps:
  - id: check
    agent: checker
    task: t
    on_failure: retry
    backoff: 1s
    output: { json: { type: object, properties: { verdict: { enum: [ok, bad] } }, required: [verdict] } }
  - { id: go, agent: writer, task: go, depends_on: check, when: 'steps.check.output.verdict == "ok"' }
`,
      }),
      respond: () => ({
        text: ++tries === 1 ? 'Looks fine to me!' : 'Here:\n```json\n{"verdict": "ok"}\n```',
      }),
    });
    const { id } = await host.startRun('w');
    expect((await host.view(id)).steps[0]).toMatchObject({
      state: 'retry_wait',
      error: { code: 'WORKFLOW_OUTPUT_INVALID', message: expect.stringContaining('the reply holds no JSON') },
    });
    await host.advance(1_000);
    expect(statesOf(await host.view(id))).toEqual({ check: 'done', go: 'done' });
    await host.stop();
  });

  it('ends a try at its timeout (cancelling its lane item), and a run at its own', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({
        'step.yaml': 'name: step\nsteps: [{ id: a, agent: writer, task: t, timeout: 30s }]\n',
        'run.yaml': 'name: run\ntimeout: 1m\nsteps: [{ id: a, agent: writer, task: t }]\n',
      }),
      respond: () => 'hold',
    });
    const step = await host.startRun('step');
    const run = await host.startRun('run');
    await host.advance(30_000);
    expect(await host.view(step.id)).toMatchObject({
      state: 'failed',
      error: { code: 'WORKFLOW_STEP_TIMEOUT' },
    });
    expect(host.lanes.cancelled).toHaveLength(1);
    await host.advance(30_000);
    expect(await host.view(run.id)).toMatchObject({ state: 'failed', error: { code: 'WORKFLOW_TIMEOUT' } });
    expect(host.lanes.cancelled).toHaveLength(2);
    await host.stop();
  });

  it('refuses bad input over the API, naming what is wrong', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({
        'ok.yaml':
          'name: ok\ninputs: { n: { type: number }, s: { type: string } }\nsteps: [{ id: a, agent: writer, task: t }]\n',
        'broken.yaml': 'name: broken\nsteps: [{ id: a, agent: ghost, task: t }]\n',
      }),
    });
    const missing = await host.post('/api/workflows/ok/runs', { inputs: { n: 'three', extra: 1 } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details.problems).toEqual([
      'unknown input "extra" (inputs: n, s)',
      'input "n" must be a number',
      'input "s" is required (string)',
    ]);
    const broken = await host.post('/api/workflows/broken/runs');
    expect(broken.json().error).toMatchObject({
      code: 'WORKFLOW_INVALID',
      message: expect.stringMatching(/broken\.yaml:2:25 steps\.0\.agent: no agent "ghost"/),
    });
    expect((await host.post('/api/workflows/nope/runs')).json().error.code).toBe('WORKFLOW_UNKNOWN');
    const list = await host.app.inject({ method: 'GET', url: '/api/workflows', headers: host.operatorAuth });
    expect(
      list.json().workflows.map((w: { name: string; problems: string[] }) => [w.name, w.problems.length]),
    ).toEqual([
      ['broken', 1],
      ['ok', 0],
    ]);
    expect(host.warnings[0]).toMatch(/^workflow file not loaded: .*broken\.yaml:2:25/);
    await host.stop();
  });
});
