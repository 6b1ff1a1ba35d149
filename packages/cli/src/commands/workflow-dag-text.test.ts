import type { WorkflowRunView, WorkflowStepView } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { drawRun, duration, layerOf } from './workflow-dag-text.js';

const step = (id: string, overrides: Partial<WorkflowStepView> = {}): WorkflowStepView => ({
  id,
  agent: 'writer',
  state: 'pending',
  depends_on: [],
  requires_approval: false,
  attempts: 0,
  started_at: null,
  finished_at: null,
  duration_ms: null,
  cost_usd: null,
  output_preview: null,
  error: null,
  items: null,
  ...overrides,
});

const run: WorkflowRunView = {
  id: 'run-1',
  workflow: 'publish',
  state: 'running',
  trigger: 'manual',
  created_at: 0,
  finished_at: null,
  error: null,
  inputs: {},
  steps: [
    step('research', { agent: 'researcher', state: 'done', duration_ms: 3_200, cost_usd: 0.0123 }),
    step('write', { state: 'running', depends_on: ['research'], duration_ms: 950 }),
    step('check', {
      state: 'retry_wait',
      depends_on: ['research'],
      error: { code: 'AGENT_LLM_FAILED', message: 'provider down' },
    }),
    step('approve', { agent: null, state: 'waiting_approval', depends_on: ['write', 'check'] }),
    step('fan', {
      state: 'running',
      depends_on: ['approve'],
      items: { total: 5, done: 2, running: 2, failed: 0 },
    }),
  ],
};

describe('drawRun', () => {
  it('draws the steps in layers with state, agent, duration, cost, what they wait for, errors and approvals', () => {
    expect(drawRun(run, 12_400).split('\n')).toEqual([
      'workflow publish · run run-1 · running · 12.4s · manual',
      '  [1] research  ✔ done              researcher    3.2s  $0.0123',
      '  [2] write     ▶ running           writer       950ms  $-  ← research',
      '      check     ↻ retry_wait        writer           -  $-  ← research',
      '        AGENT_LLM_FAILED: provider down',
      '  [3] approve   ? waiting_approval  -                -  $-  ← write, check',
      '        approve: openlegion workflow approve run-1 approve   reject: openlegion workflow reject run-1 approve',
      '  [4] fan       ▶ running           writer           -  $- 2/5  ← approve',
      '',
    ]);
  });

  it('gives a step one layer past its deepest dependency', () => {
    const layers = layerOf([
      { id: 'a', depends_on: [] },
      { id: 'b', depends_on: ['a'] },
      { id: 'c', depends_on: ['a', 'b'] },
    ]);
    expect([...layers]).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
  });

  it('writes durations for people', () => {
    expect([850, 4_200, 190_000, 7_500_000].map(duration)).toEqual(['850ms', '4.2s', '3m10s', '2h05m']);
  });
});
