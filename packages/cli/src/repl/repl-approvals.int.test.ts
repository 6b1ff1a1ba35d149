import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { createJsonClient } from '@openlegion/infra/http';
import { type ChatEvent, formatSseEvent, type MeshStatus, type ToolCallApproval } from '@openlegion/protocol';
import { readyAgentInfo } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import type { HostConnection } from '../host-connection.js';
import { runRepl } from './repl.js';

const status: MeshStatus = {
  mesh: 't',
  version: '0.1.0',
  pid: 1,
  url: 'http://127.0.0.1',
  started_at: new Date(0).toISOString(),
  runtime: 'process',
  agents: [readyAgentInfo('writer')],
  warnings: [],
};

const held = (id: string): ToolCallApproval => ({
  kind: 'tool_call',
  id,
  waiting_since: 1,
  expires_at: Date.now() + 600_000,
  agent: 'writer',
  tool: 'github__create_issue',
  arguments_preview: '{"title":"Tea"}',
});

/**
 * A stand-in host on loopback, as the real one answers the REPL: each chat turn calls the gated
 * tool, streams that it waits, and holds the stream open until the operator decides over
 * `/api/approvals/:id/approve|reject`; an approved call runs, a refused one gets the refusal.
 */
class StandInHost {
  readonly calls: string[] = [];
  pending: ToolCallApproval[] = [];
  #turns = 0;
  #open = new Map<string, ServerResponse>();
  #waiting: ((id: string) => void) | undefined;
  readonly server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => this.#answer(request.method ?? '', request.url ?? '', body, response));
  });

  /** Resolves with the id of the next call that starts to wait. */
  nextWait(): Promise<string> {
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  #answer(method: string, url: string, body: string, response: ServerResponse) {
    this.calls.push(`${method} ${url} ${body}`);
    const json = (value: unknown, code = 200) => {
      response.statusCode = code;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(value));
    };
    if (url === '/api/status') return json(status);
    if (url === '/api/approvals') return json({ approvals: this.pending });
    if (url.startsWith('/api/lanes')) return json({ items: [] });
    const decided = /^\/api\/approvals\/([^/]+)\/(approve|reject)$/.exec(url);
    if (decided) return this.#decide(decided[1] ?? '', decided[2] === 'approve', json);
    if (method === 'POST' && url.startsWith('/api/agents/writer/chat')) return this.#turn(response);
    json({ error: { code: 'NOT_FOUND', message: `no route ${url}`, retryable: false } }, 404);
  }

  #turn(response: ServerResponse): void {
    this.#turns += 1;
    const id = `ap-${String(this.#turns).padStart(32, '0')}`;
    this.pending.push(held(id));
    this.#open.set(id, response);
    response.setHeader('content-type', 'text/event-stream');
    const events: ChatEvent[] = [
      { type: 'tool_start', id: 'c1', name: 'github__create_issue', input: { title: 'Tea' } },
      { type: 'approval', id, tool: 'github__create_issue', state: 'waiting', expires_at: 1 },
      // Said again while it waits (keeps the host's watchdogs quiet): shown once.
      { type: 'approval', id, tool: 'github__create_issue', state: 'waiting', expires_at: 1 },
    ];
    response.write(events.map(formatSseEvent).join(''));
    this.#waiting?.(id);
  }

  #decide(encoded: string, approve: boolean, json: (value: unknown, code?: number) => void) {
    const id = decodeURIComponent(encoded);
    const approval = this.pending.find((candidate) => candidate.id === id);
    const stream = this.#open.get(id);
    if (!approval || !stream)
      return json(
        {
          error: {
            code: 'APPROVAL_UNKNOWN',
            message: `nothing waits for approval under "${id}"`,
            retryable: false,
          },
        },
        404,
      );
    this.pending = this.pending.filter((candidate) => candidate !== approval);
    json({ approval, decision: approve ? 'approve' : 'reject' });
    const result = approve
      ? 'issue #7 opened'
      : "Not run: github__create_issue needs the operator's approval";
    const text = approve ? 'Filed it as #7.' : 'The operator said no, so I did not file it.';
    const events: ChatEvent[] = [
      { type: 'approval', id, tool: 'github__create_issue', state: approve ? 'approved' : 'rejected' },
      { type: 'tool_result', id: 'c1', output: result, is_error: !approve },
      { type: 'text_delta', text },
      { type: 'done', conversation_id: 'c', text },
    ];
    stream.end(events.map(formatSseEvent).join(''));
  }
}

describe('REPL tool calls that ask first', () => {
  const stand = new StandInHost();
  let host: HostConnection;

  beforeAll(async () => {
    await new Promise<void>((resolve) => stand.server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(stand.server.address() as AddressInfo).port}`;
    host = {
      mesh: 't',
      url,
      token: 'unused',
      dataDir: await mkdtemp(path.join(tmpdir(), 'repl-approvals-')),
      request: (method, route, body) =>
        fetch(`${url}${route}`, {
          method,
          ...(body === undefined
            ? {}
            : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
        }),
      client: createJsonClient({ baseUrl: url, token: 'unused' }),
    };
  });
  afterAll(() => new Promise<void>((resolve) => stand.server.close(() => resolve())));

  it('approves a waiting call while its turn streams, so it runs; rejects the next, which does not', async () => {
    const input = new PassThrough();
    const output = capture();
    const repl = runRepl(host, undefined, output, { input, terminal: false });
    const first = stand.nextWait();
    input.write('file an issue about tea\n');
    const firstId = await first;
    // Typed while the turn streams: it acts at once instead of queueing behind the turn.
    input.write('/queue\n');
    input.write(`/approve ${firstId} fine\n`);
    await waitFor(() => output.stdout().includes('Filed it as #7.'));

    const second = stand.nextWait();
    input.write('and another one\n');
    const secondId = await second;
    input.write(`/reject ${secondId} not now\n`);
    await waitFor(() => output.stdout().includes('The operator said no'));
    input.write(`/approve ${secondId}\n`);
    input.end('/quit\n');
    expect(await repl).toBe(0);

    const out = output.stdout();
    const waits = out.split('\n').filter((line) => line.includes('waits for your approval'));
    expect(waits).toEqual([
      `    ⏸ github__create_issue waits for your approval: /approve ${firstId}  or  /reject ${firstId}`,
      `    ⏸ github__create_issue waits for your approval: /approve ${secondId}  or  /reject ${secondId}`,
    ]);
    expect(out).toContain(
      `  ⏸ writer wants to run github__create_issue {"title":"Tea"}  (/approve ${firstId}`,
    );
    expect(out).toContain("approved: writer's call of github__create_issue");
    expect(out).toContain('    ✓ approved');
    expect(out).toContain("rejected: writer's call of github__create_issue");
    expect(out).toContain('    ✗ rejected');
    expect(stand.calls).toContain(`POST /api/approvals/${firstId}/approve {"note":"fine"}`);
    expect(stand.calls).toContain(`POST /api/approvals/${secondId}/reject {"note":"not now"}`);
    expect(output.stderr()).toContain(`nothing waits for approval under "${secondId}"`);
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error('timed out waiting');
}
