import { describe, expect, it } from 'vitest';
import { startWorkflowTestHost, workflowDir } from '../../test/workflow-test-host.js';
import { USAGE_RECORDED, type UsageRecord } from '../costs/index.js';
import { WORKFLOW_STEP_CHANGED } from './index.js';

const ONE_STEP = `
name: one
steps:
  - { id: write, agent: writer, task: "write" }
`;

const usage = (agent: string, traceId: string | null, cost: number): UsageRecord => ({
  at: 0,
  agent,
  billed_to: agent,
  model: 'openai/gpt-test',
  prompt_tokens: 10,
  completion_tokens: 5,
  cached_tokens: 0,
  cost_usd: cost,
  request_id: 'req',
  trace_id: traceId,
  estimated: 0,
});

describe('a workflow step', () => {
  it('costs what the calls made under its lane item cost, as the bus tells it', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({ 'one.yaml': ONE_STEP }),
      respond: () => ({ text: 'done', afterMs: 10 }),
    });
    const started = await host.startRun('one', {});
    await host.advance(100);
    const item = host.lanes.items().find(({ sourceRef }) => sourceRef === `${started.id}/write/-1`);
    expect(item).toBeDefined();
    const traceId = item?.traceId ?? '';
    host.context.events.emit(USAGE_RECORDED, usage('writer', traceId, 0.25));
    host.context.events.emit(USAGE_RECORDED, usage('writer', traceId, 0.5));
    // Another agent's call under the same trace, and a call under no trace, are not the step's.
    host.context.events.emit(USAGE_RECORDED, usage('other', traceId, 9));
    host.context.events.emit(USAGE_RECORDED, usage('writer', null, 9));
    const view = await host.view(started.id);
    expect(view.steps.find((step) => step.id === 'write')?.cost_usd).toBe(0.75);
    await host.stop();
  });
});

describe('a workflow run, heard on the bus', () => {
  it('tells every write of a step row, from its creation to its end', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({ 'one.yaml': ONE_STEP }),
      respond: () => ({ text: 'done', afterMs: 10 }),
    });
    const moves: string[] = [];
    host.context.events.on(WORKFLOW_STEP_CHANGED, (step) => moves.push(`${step.stepId} ${step.state}`));
    await host.startRun('one', {});
    await host.advance(100);
    expect(moves).toEqual(['write pending', 'write running', 'write done']);
    await host.stop();
  });
});
