import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeClock } from '@openlegion/infra/clock';
import { describe, expect, it } from 'vitest';
import { startWorkflowTestHost, statesOf, workflowDir } from '../../test/workflow-test-host.js';
import { inMemoryBlackboard } from './index.js';

const PIPELINE = `
name: pipeline
steps:
  - { id: research, agent: researcher, task: research }
  - { id: write, agent: writer, task: "write \${steps.research.output}", depends_on: research, save_to: drafts/latest }
  - { id: publish, agent: writer, task: "publish \${steps.write.output}", depends_on: write }
  - { id: flaky, agent: checker, task: flaky, on_failure: retry, backoff: 10s }
`;

/** A blackboard that counts its writes: a visible result must be written once. */
function countingBlackboard() {
  const board = inMemoryBlackboard();
  const puts: string[] = [];
  const put = (key: string, value: unknown, by: string) => {
    puts.push(key);
    board.put(key, value, by);
  };
  return { ...board, puts, put };
}

describe('a workflow run across a host restart', () => {
  it('resumes over the same mesh.db: finished steps do not run again, the one in flight finishes once', async () => {
    const dbFile = path.join(mkdtempSync(path.join(tmpdir(), 'wf-restart-')), 'mesh.db');
    const dir = workflowDir({ 'pipeline.yaml': PIPELINE });
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const blackboard = countingBlackboard();
    const before = await startWorkflowTestHost({
      dir,
      dbFile,
      clock,
      blackboard,
      respond: (item) => {
        if (item.message === 'research') return { text: 'notes' };
        if (item.message === 'flaky') return { error: 'AGENT_LLM_FAILED' };
        return 'hold'; // the host dies while the writer writes
      },
    });
    const { id } = await before.startRun('pipeline');
    expect(statesOf(await before.view(id))).toEqual({
      research: 'done',
      write: 'running',
      publish: 'pending',
      flaky: 'retry_wait',
    });
    await before.stop();

    const after = await startWorkflowTestHost({
      dir,
      dbFile,
      clock,
      blackboard,
      respond: (item) => ({ text: `<${item.message}>` }),
    });
    await after.settle();
    expect(statesOf(await after.view(id))).toMatchObject({
      research: 'done',
      write: 'done',
      publish: 'done',
    });
    // The retry waits out its backoff, counted from before the restart.
    await after.advance(10_000);
    const run = await after.view(id);
    expect(run.state).toBe('succeeded');
    const items = after.lanes.items();
    const byStep = (step: string) => items.filter((item) => item.sourceRef === `${id}/${step}/-1`);
    expect(byStep('research')).toHaveLength(1);
    expect(byStep('write')).toHaveLength(1);
    expect(byStep('write')[0]).toMatchObject({ attempts: 2, resultText: '<write notes>' });
    expect(byStep('publish').map((item) => item.message)).toEqual(['publish <write notes>']);
    expect(after.lanes.requests.map((request) => request.message)).not.toContain('research');
    expect(blackboard.puts).toEqual(['drafts/latest']);
    await after.stop();
  });

  it('picks up a result that arrived while the host was stopping, without handing the step over again', async () => {
    const dbFile = path.join(mkdtempSync(path.join(tmpdir(), 'wf-restart-')), 'mesh.db');
    const dir = workflowDir({
      'w.yaml':
        'name: w\nsteps:\n  - { id: a, agent: writer, task: a }\n  - { id: b, agent: writer, task: b, depends_on: a }\n',
    });
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const before = await startWorkflowTestHost({ dir, dbFile, clock, respond: () => 'hold' });
    const { id } = await before.startRun('w');
    await before.workflows.stop?.();
    // The lanes finish the item after the workflow engine stopped: its delivery finds no engine.
    const [item] = before.lanes.running();
    await before.lanes.finish(item?.id ?? 0, { text: 'A' });
    await before.stop();

    const after = await startWorkflowTestHost({ dir, dbFile, clock, respond: () => ({ text: 'B' }) });
    await after.settle();
    expect(statesOf(await after.view(id))).toEqual({ a: 'done', b: 'done' });
    expect(after.lanes.requests.map((request) => request.message)).toEqual(['b']);
    await after.stop();
  });
});
