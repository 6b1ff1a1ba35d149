import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@openlegion/infra/log';
import { type AgentTool, type ChatEvent, OpenLegionError, textResult } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { counterTool, startLoopHarness, textOf } from '../../test/loop-harness.js';
import { LoopDetector } from '../loop/loop-detector.js';
import { runToolRound } from '../loop/tool-round.js';
import { createMeshClient } from '../tools/mesh/mesh-client.js';
import { createToolApprovalGate } from './tool-approval-gate.js';

const ID = `ap-${'a'.repeat(32)}`;

/**
 * A loopback stand-in for the host's `/mesh/approvals`: the request is held, each long poll
 * answers `pending` until `polls` have passed, then the outcome; `refuse` answers the request with
 * an error body instead.
 */
async function fakeHost(outcome: { state: string; note?: string; polls?: number; refuse?: OpenLegionError }) {
  const calls: string[] = [];
  let polls = 0;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      calls.push(`${request.method} ${request.url} ${body}`.trim());
      response.setHeader('content-type', 'application/json');
      const status = (state: string) => ({
        id: ID,
        state,
        expires_at: 99,
        ...(outcome.note ? { note: outcome.note } : {}),
      });
      if (request.method === 'POST' && outcome.refuse) {
        response.statusCode = outcome.refuse.status;
        return response.end(JSON.stringify(outcome.refuse.toJSON()));
      }
      if (request.method === 'POST') {
        response.statusCode = 201;
        return response.end(JSON.stringify(status('pending')));
      }
      if (request.method === 'DELETE') return response.end(JSON.stringify(status('withdrawn')));
      polls += 1;
      if (polls <= (outcome.polls ?? 2)) return response.end(JSON.stringify(status('pending')));
      response.end(JSON.stringify(status(outcome.state)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, calls, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const ran: unknown[] = [];
const createIssue: AgentTool = {
  name: 'github__create_issue',
  group: 'web',
  description: 'open an issue',
  input: z.object({ title: z.string() }),
  async run(input) {
    ran.push(input);
    return textResult('issue #7 opened');
  },
};
const readFile: AgentTool = { ...createIssue, name: 'read_file', description: 'read' };

describe('tools that ask first (agent side)', () => {
  let host: Awaited<ReturnType<typeof fakeHost>>;
  afterEach(async () => {
    ran.length = 0;
    await host.close();
  });

  async function round(name: string, signal = new AbortController().signal) {
    const gate = createToolApprovalGate({
      patterns: ['github__*', 'run_command'],
      mesh: createMeshClient({ meshUrl: host.url, token: 't' }),
      logger: createLogger({ level: 'silent' }),
    });
    const events: ChatEvent[] = [];
    const outcome = await runToolRound(
      {
        tools: new Map([createIssue, readFile].map((tool) => [tool.name, tool])),
        detector: new LoopDetector(),
        workspace: '/nonexistent',
        emit: (event) => events.push(event),
        signal,
        traceId: 'trace-1',
        approval: gate,
      },
      [{ id: 'c1', name, arguments: '{"title":"Tea"}' }],
    );
    return { events, text: outcome.toolMessages[0]?.content ?? '' };
  }

  it('waits for the operator, saying so after each poll, then runs the approved call', async () => {
    host = await fakeHost({ state: 'approved', polls: 2 });
    const { events, text } = await round('github__create_issue');
    expect(ran).toEqual([{ title: 'Tea' }]);
    expect(text).toContain('issue #7 opened');
    expect(
      events.map((event) => (event.type === 'approval' ? `approval:${event.state}` : event.type)),
    ).toEqual([
      'tool_start',
      'approval:waiting',
      'approval:waiting',
      'approval:waiting',
      'approval:approved',
      'tool_result',
    ]);
    expect(host.calls[0]).toBe(
      'POST /mesh/approvals {"tool":"github__create_issue","arguments":{"title":"Tea"}}',
    );
    expect(host.calls.slice(1)).toEqual([
      `GET /mesh/approvals/${ID}`,
      `GET /mesh/approvals/${ID}`,
      `GET /mesh/approvals/${ID}`,
    ]);
  });

  it('gives the model a clear result, not an exception, when the operator refuses', async () => {
    host = await fakeHost({ state: 'rejected', note: 'not on a Friday', polls: 0 });
    const { text, events } = await round('github__create_issue');
    expect(ran).toEqual([]);
    expect(text).toContain(
      "Not run: github__create_issue needs the operator's approval, and the operator refused it (their note: not on a Friday). Do not call it again for the same purpose unless the user asks; say what you wanted to do, or find another way.",
    );
    expect(text.startsWith('Error: ')).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'tool_result', is_error: true });
  });

  it('says nobody approved in time when the approval times out', async () => {
    host = await fakeHost({ state: 'expired', polls: 1 });
    const { text } = await round('github__create_issue');
    expect(ran).toEqual([]);
    expect(text).toContain(
      "Not run: github__create_issue needs the operator's approval, and nobody approved it in time. Tell the user it waits for their approval, and do not retry it on your own.",
    );
  });

  it('reports a refused request (too many waiting) as a result the model can act on', async () => {
    host = await fakeHost({
      state: 'approved',
      refuse: new OpenLegionError('APPROVAL_TOO_MANY', 'a already has 4 tool calls waiting for the operator'),
    });
    const { text } = await round('github__create_issue');
    expect(ran).toEqual([]);
    expect(text).toContain(
      "Not run: github__create_issue needs the operator's approval, and the operator could not be asked (APPROVAL_TOO_MANY: a already has 4 tool calls waiting for the operator).",
    );
  });

  it('runs a tool the approval list does not name without asking', async () => {
    host = await fakeHost({ state: 'rejected' });
    const { text } = await round('read_file');
    expect(text).toContain('issue #7 opened');
    expect(host.calls).toEqual([]);
  });

  it('withdraws the request when the turn ends while it waits', async () => {
    host = await fakeHost({ state: 'approved', polls: 1_000 });
    const controller = new AbortController();
    const waiting = round('github__create_issue', controller.signal);
    while (!host.calls.some((call) => call.startsWith('GET')))
      await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('turn interrupted'));
    await expect(waiting).rejects.toThrow('turn interrupted');
    while (!host.calls.some((call) => call.startsWith('DELETE')))
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(host.calls.at(-1)).toBe(`DELETE /mesh/approvals/${ID}`);
    expect(ran).toEqual([]);
  });
});

describe('a whole turn with a tool that asks first', () => {
  it('goes on after a refusal: the model reads why and answers, the turn ends with done', async () => {
    const host = await fakeHost({ state: 'rejected', note: 'not today', polls: 1 });
    const counter = counterTool();
    const harness = await startLoopHarness({
      tools: [counter],
      approval: createToolApprovalGate({
        patterns: ['count*'],
        mesh: createMeshClient({ meshUrl: host.url, token: 't' }),
        logger: createLogger({ level: 'silent' }),
      }),
      script: {
        rules: [
          {
            match: { tool_result: 'the operator refused it' },
            reply: { text: 'I was not allowed to count.' },
          },
          {
            match: { last_message: 'count' },
            reply: { tool_calls: [{ name: 'counter', arguments: { by: 2 } }] },
          },
        ],
      },
    });
    try {
      const events = await harness.chat('count please', { traceId: 'trace-9' });
      expect(counter.value()).toBe(0);
      expect(events.filter((event) => event.type === 'approval').map((event) => event.state)).toEqual([
        'waiting',
        'waiting',
        'rejected',
      ]);
      expect(events.at(-1)).toMatchObject({ type: 'done', text: 'I was not allowed to count.' });
      const toolMessage = harness
        .sent()
        .at(-1)
        ?.messages.find((message) => message.role === 'tool');
      expect(textOf(toolMessage)).toContain('the operator refused it (their note: not today)');
    } finally {
      await harness.close();
      await host.close();
    }
  });
});
