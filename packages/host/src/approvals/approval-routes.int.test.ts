import type { AddressInfo } from 'node:net';
import type { OperatorNotice } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { TRACE_LOG, tracesFeature } from '../traces/index.js';
import { approvalPollMs } from './approval-routes.js';
import { approvalsFeature } from './approvals-feature.js';

const CONFIG = {
  llm: { providers: { openai: {} } },
  agents: { a: { approval: ['github__*'] }, b: {} },
  approvals: { timeout_ms: 60_000, max_pending_per_agent: 2 },
};

describe('approval routes', () => {
  let host: FeatureTestHost;
  afterEach(() => host.stop());

  const ask = (agent: string, payload: unknown, trace?: string) =>
    host.app.inject({
      method: 'POST',
      url: '/mesh/approvals',
      headers: { ...host.agentAuth(agent), ...(trace ? { 'x-trace-id': trace } : {}) },
      payload: payload as object,
    });
  const poll = (agent: string, id: string) =>
    host.app.inject({ method: 'GET', url: `/mesh/approvals/${id}`, headers: host.agentAuth(agent) });
  const decide = (id: string, decision: string, headers = host.operatorAuth, note?: string) =>
    host.app.inject({
      method: 'POST',
      url: `/api/approvals/${id}/${decision}`,
      headers,
      payload: note ? { note } : {},
    });

  it('holds a tool call until the operator approves it; the agent long-polls the decision; traces show the wait', async () => {
    host = await startFeatureTestHost([tracesFeature(), approvalsFeature()], CONFIG);
    const notices: OperatorNotice[] = [];
    host.context.notices.subscribe((notice) => notices.push(notice));
    const asked = await ask(
      'a',
      { tool: 'github__create_issue', arguments: { title: 'Tea', token: 'ghp_x' } },
      't-1',
    );
    expect(asked.statusCode).toBe(201);
    const { id, state, expires_at } = asked.json();
    expect(state).toBe('pending');
    expect(expires_at).toBe(host.clock.now() + 60_000);

    const listed = (await host.app.inject({ url: '/api/approvals', headers: host.operatorAuth })).json();
    expect(listed.approvals).toEqual([
      {
        kind: 'tool_call',
        id,
        waiting_since: host.clock.now(),
        expires_at,
        agent: 'a',
        tool: 'github__create_issue',
        arguments_preview: '{"title":"Tea","token":"[redacted]"}',
        trace_id: 't-1',
      },
    ]);
    expect(notices.map((notice) => notice.approval?.id)).toEqual([id]);
    expect(notices[0]?.text).toBe(
      `a wants to run github__create_issue {"title":"Tea","token":"[redacted]"} (/approve ${id} or /reject ${id})`,
    );

    const waiting = poll('a', id);
    // An agent cannot decide, not even its own request.
    const self = await decide(id, 'approve', host.agentAuth('a'));
    expect(self.statusCode).toBe(403);
    expect(self.json().error.code).toBe('AUTH_FORBIDDEN');
    const approved = await decide(id, 'approve', host.operatorAuth, 'go');
    expect(approved.json()).toMatchObject({ decision: 'approve', approval: { id, kind: 'tool_call' } });
    expect((await waiting).json()).toEqual({ id, state: 'approved', expires_at, note: 'go' });

    const again = await decide(id, 'reject');
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('APPROVAL_UNKNOWN');
    const hops = host
      .service(TRACE_LOG)
      .events('t-1')
      .filter((hop) => hop.hop.startsWith('approval.'));
    expect(hops.map((hop) => hop.hop)).toEqual(['approval.waiting', 'approval.approved']);
    expect(hops[1]?.detail).toEqual({ id, tool: 'github__create_issue', ms: 0 });
  });

  it('answers a poll after its window while nobody decides, and times the call out on its own', async () => {
    host = await startFeatureTestHost([approvalsFeature()], CONFIG);
    const { id } = (await ask('a', { tool: 'github__merge' })).json();
    const timers = host.clock.pendingTimers;
    const first = poll('a', id);
    await until(() => host.clock.pendingTimers > timers);
    await host.clock.advance(approvalPollMs(600_000));
    expect((await first).json().state).toBe('pending');
    // 25 s, 50 s: still pending; at 60 s (approvals.timeout_ms) it expires.
    const states: string[] = [];
    for (let round = 0; round < 2; round += 1) {
      const next = poll('a', id);
      await until(() => host.clock.pendingTimers > timers);
      await host.clock.advance(25_000);
      states.push((await next).json().state);
    }
    expect(states).toEqual(['pending', 'expired']);
    expect(host.clock.now() - Date.parse('2026-01-01T00:00:00Z')).toBe(75_000);
    expect((await host.app.inject({ url: '/api/approvals', headers: host.operatorAuth })).json()).toEqual({
      approvals: [],
    });
  });

  it('holds a long poll over a real connection until the decision', async () => {
    host = await startFeatureTestHost([approvalsFeature()], CONFIG);
    const { id } = (await ask('a', { tool: 'github__merge' })).json();
    await host.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = host.app.server.address() as AddressInfo;
    let answered = false;
    const poll = fetch(`http://127.0.0.1:${port}/mesh/approvals/${id}`, {
      headers: host.agentAuth('a'),
    }).then(async (response) => {
      answered = true;
      return response.json();
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    await decide(id, 'reject', host.operatorAuth, 'no');
    expect(await poll).toMatchObject({ id, state: 'rejected', note: 'no' });
  });

  it('refuses a flood of requests from one agent with APPROVAL_TOO_MANY, and bad input by field', async () => {
    host = await startFeatureTestHost([approvalsFeature()], CONFIG);
    await ask('a', { tool: 't1' });
    await ask('a', { tool: 't2' });
    const third = await ask('a', { tool: 't3' });
    expect(third.statusCode).toBe(429);
    expect(third.json().error).toMatchObject({
      code: 'APPROVAL_TOO_MANY',
      retryable: true,
      message:
        'a already has 2 tool calls waiting for the operator (approvals.max_pending_per_agent: 2); wait for a decision before asking again',
    });
    const bad = await ask('a', { tool: '', extra: 1 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('REQUEST_INVALID');
    expect(bad.json().error.message).toContain('tool');
    const long = await ask('a', { tool: 'x'.repeat(201) });
    expect(long.json().error.code).toBe('REQUEST_INVALID');
  });

  it("never lets an agent read or withdraw another agent's request", async () => {
    host = await startFeatureTestHost([approvalsFeature()], CONFIG);
    const { id } = (await ask('a', { tool: 't' })).json();
    const read = await poll('b', id);
    expect(read.statusCode).toBe(404);
    expect(read.json().error).toMatchObject({
      code: 'APPROVAL_UNKNOWN',
      message: `no tool call waits for approval under "${id}"`,
    });
    const withdrawn = await host.app.inject({
      method: 'DELETE',
      url: `/mesh/approvals/${id}`,
      headers: host.agentAuth('b'),
    });
    expect(withdrawn.statusCode).toBe(404);
    const own = await host.app.inject({
      method: 'DELETE',
      url: `/mesh/approvals/${id}`,
      headers: host.agentAuth('a'),
    });
    expect(own.json().state).toBe('withdrawn');
  });

  it('holds each long poll for a third of the lane watchdog, at most 25 s, so a waiting turn streams in time', () => {
    expect(approvalPollMs(600_000)).toBe(25_000);
    expect(approvalPollMs(30_000)).toBe(10_000);
    expect(approvalPollMs(1_000)).toBe(333);
  });
});

/** Let the route start waiting (inject runs it a few ticks later). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i += 1) await new Promise((resolve) => setImmediate(resolve));
}
