import { describe, expect, it } from 'vitest';
import {
  chatEventSchema,
  meshConfigSchema,
  pendingApprovalSchema,
  toolApprovalRequestSchema,
  workflowStepApprovalId,
} from './index.js';

const base = { llm: { providers: { openai: {} } } };

describe('tools that ask first in mesh.yaml', () => {
  it('takes tool names and globs per agent, none by default, and the approvals section with its defaults', () => {
    const config = meshConfigSchema.parse({
      ...base,
      agents: { a: { approval: ['run_command', 'github__*'] }, b: {} },
    });
    expect(config.agents.a?.approval).toEqual(['run_command', 'github__*']);
    expect(config.agents.b?.approval).toEqual([]);
    expect(config.approvals).toEqual({ timeout_ms: 600_000, max_pending_per_agent: 4 });
  });

  it('refuses a pattern no person writes on purpose, and an unknown approvals field, naming them', () => {
    const parsed = meshConfigSchema.safeParse({
      ...base,
      agents: { a: { approval: ['*'.repeat(17)] } },
      approvals: { timeout_ms: 10, every: 1 },
    });
    expect(parsed.success).toBe(false);
    const issues = parsed.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) ?? [];
    expect(issues).toContain(
      'agents.a.approval.0: a pattern has at most 16 wildcards (* or ?); this one has 17: use fewer',
    );
    expect(issues.some((issue) => issue.startsWith('approvals.timeout_ms:'))).toBe(true);
    expect(issues.some((issue) => issue.startsWith('approvals:') && issue.includes('every'))).toBe(true);
  });
});

describe('the one approval shape', () => {
  it('is a union on kind: a workflow step by RUN:STEP, a tool call with its bounded preview', () => {
    const step = pendingApprovalSchema.parse({
      kind: 'workflow_step',
      id: workflowStepApprovalId('run-1', 'review'),
      waiting_since: 1,
      run: 'run-1',
      workflow: 'w',
      step: 'review',
    });
    expect(step.id).toBe('run-1:review');
    expect(pendingApprovalSchema.safeParse({ kind: 'tool_call', id: 'x', waiting_since: 1 }).success).toBe(
      false,
    );
  });

  it('bounds what an agent asks with, and carries the approval event of a turn', () => {
    expect(toolApprovalRequestSchema.safeParse({ tool: 'x'.repeat(201) }).success).toBe(false);
    expect(toolApprovalRequestSchema.safeParse({ tool: 't', arguments: { a: 1 }, extra: 1 }).success).toBe(
      false,
    );
    expect(
      chatEventSchema.parse({ type: 'approval', id: 'ap-1', tool: 't', state: 'waiting', expires_at: 5 }),
    ).toMatchObject({ state: 'waiting' });
  });
});
