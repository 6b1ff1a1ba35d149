import { FakeClock } from '@openlegion/infra/clock';
import { isOpenLegionError, type ToolApprovalState } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { argumentsPreview, displayText } from './arguments-preview.js';
import { REQUESTS_PER_AGENT_PER_MINUTE, ToolCallApprovals } from './tool-call-approvals.js';

function store(options: { max?: number; timeoutMs?: number } = {}) {
  const clock = new FakeClock(1_000);
  const changes: string[] = [];
  const approvals = new ToolCallApprovals({
    clock,
    timeoutMs: options.timeoutMs ?? 60_000,
    maxPendingPerAgent: options.max ?? 2,
    secretsOf: () => ['mesh-token-of-agent-a-0123456789'],
    onChange: (approval, state: ToolApprovalState) => changes.push(`${approval.tool}:${state}`),
  });
  return { clock, approvals, changes };
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isOpenLegionError(error) ? `${error.code}: ${error.message}` : String(error);
  }
  return undefined;
}

describe('ToolCallApprovals', () => {
  it('holds a call with an unguessable id until the operator approves it, and wakes the waiting poll', async () => {
    const { approvals, changes } = store();
    const held = approvals.request('a', { tool: 'run_command', arguments: { command: 'ls' }, traceId: 't1' });
    expect(held.id).toMatch(/^ap-[0-9a-f]{32}$/);
    expect(held).toMatchObject({ agent: 'a', tool: 'run_command', arguments_preview: '{"command":"ls"}' });
    expect(held.expires_at).toBe(61_000);
    const poll = approvals.wait('a', held.id, 25_000);
    expect(approvals.decide(held.id, 'approve', 'ok')).toBe(true);
    expect(await poll).toEqual({ id: held.id, state: 'approved', expires_at: 61_000, note: 'ok' });
    expect(approvals.pending()).toEqual([]);
    expect(changes).toEqual(['run_command:pending', 'run_command:approved']);
  });

  it('answers a poll that nobody decided after its window, still pending', async () => {
    const { approvals, clock } = store();
    const held = approvals.request('a', { tool: 't' });
    const poll = approvals.wait('a', held.id, 25_000);
    await clock.advance(25_000);
    expect((await poll).state).toBe('pending');
  });

  it('times a call out on its own: expired, off the list, the waiting poll told', async () => {
    const { approvals, clock, changes } = store({ timeoutMs: 60_000 });
    const held = approvals.request('a', { tool: 't' });
    const poll = approvals.wait('a', held.id, 120_000);
    await clock.advance(60_000);
    expect((await poll).state).toBe('expired');
    expect(approvals.pending()).toEqual([]);
    expect(approvals.decide(held.id, 'approve')).toBe(false);
    expect(changes).toEqual(['t:pending', 't:expired']);
  });

  it('refuses more than max_pending_per_agent waiting calls of one agent with APPROVAL_TOO_MANY', () => {
    const { approvals } = store({ max: 2 });
    approvals.request('a', { tool: 't' });
    approvals.request('a', { tool: 't' });
    expect(codeOf(() => approvals.request('a', { tool: 't' }))).toBe(
      'APPROVAL_TOO_MANY: a already has 2 tool calls waiting for the operator (approvals.max_pending_per_agent: 2); wait for a decision before asking again',
    );
    // Another agent has its own allowance.
    expect(approvals.request('b', { tool: 't' }).agent).toBe('b');
  });

  it("answers another agent's id exactly like an id that does not exist", () => {
    const { approvals } = store();
    const held = approvals.request('a', { tool: 't' });
    expect(codeOf(() => approvals.status('b', held.id))).toBe(
      `APPROVAL_UNKNOWN: no tool call waits for approval under "${held.id}"`,
    );
    expect(codeOf(() => approvals.withdraw('b', held.id))).toMatch(/^APPROVAL_UNKNOWN/);
    expect(approvals.pending()).toHaveLength(1);
  });

  it('takes a withdrawn call off the list at once; the decision comes too late', () => {
    const { approvals, changes } = store();
    const held = approvals.request('a', { tool: 't' });
    expect(approvals.withdraw('a', held.id).state).toBe('withdrawn');
    expect(approvals.pending()).toEqual([]);
    expect(approvals.decide(held.id, 'approve')).toBe(false);
    expect(codeOf(() => approvals.status('a', held.id))).toMatch(/^APPROVAL_UNKNOWN/);
    expect(changes).toEqual(['t:pending', 't:withdrawn']);
  });

  it('refuses an agent that asks and withdraws in a loop past REQUESTS_PER_AGENT_PER_MINUTE', async () => {
    const { approvals, clock } = store();
    for (let i = 0; i < REQUESTS_PER_AGENT_PER_MINUTE; i += 1)
      approvals.withdraw('a', approvals.request('a', { tool: 't' }).id);
    expect(codeOf(() => approvals.request('a', { tool: 't' }))).toBe(
      `APPROVAL_TOO_MANY: a asked for ${REQUESTS_PER_AGENT_PER_MINUTE} approvals in the last minute (at most ${REQUESTS_PER_AGENT_PER_MINUTE}); wait before asking again`,
    );
    await clock.advance(60_000);
    expect(approvals.request('a', { tool: 't' }).agent).toBe('a');
  });
});

describe('argumentsPreview', () => {
  it('never shows a value under a secret-looking key, nor the agent token anywhere', () => {
    const preview = argumentsPreview(
      {
        headers: { Authorization: 'Bearer x' },
        api_key: 'k',
        body: 'use mesh-token-of-agent-a-0123456789 now',
      },
      ['mesh-token-of-agent-a-0123456789'],
    );
    expect(preview).toBe(
      '{"headers":{"Authorization":"[redacted]"},"api_key":"[redacted]","body":"use [redacted] now"}',
    );
  });

  it('keeps to one line of bounded length without control or invisible characters', () => {
    const preview = argumentsPreview({ text: `a\nb\u001b[31mred\u202etxt.exe${'x'.repeat(5_000)}` });
    expect(preview.length).toBeLessThanOrEqual(400);
    expect(preview).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    // JSON escapes the newline and ESC; the bidi override is replaced by a space.
    expect(preview.slice(0, 37)).toBe(String.raw`{"text":"a\nb\u001b[31mred txt.exexxx`);
    expect(preview.endsWith('x…"}')).toBe(true);
    const long = argumentsPreview({ a: 'x'.repeat(300), b: 'y'.repeat(300) });
    expect(long).toHaveLength(400);
    expect(long.endsWith('y…')).toBe(true);
  });

  it('cuts deep nesting and long lists', () => {
    const deep = { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } };
    expect(argumentsPreview(deep)).toBe('{"a":{"b":{"c":{"d":{"e":{"f":"…"}}}}}}');
    expect(argumentsPreview(Array.from({ length: 80 }, () => 1))).toBe(`[${Array(50).fill(1).join(',')}]`);
  });

  it('shows a tool name as one short line', () => {
    expect(displayText('evil\r\nname\u200b', 120)).toBe('evil  name ');
    expect(displayText('x'.repeat(300), 120)).toHaveLength(120);
  });
});
