import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createJsonClient } from '@openlegion/infra/http';
import type { MeshStatus, PendingApproval, WorkflowRunView } from '@openlegion/protocol';
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

const run = (state: WorkflowRunView['state']): WorkflowRunView => ({
  id: 'run-9',
  workflow: 'publish',
  state,
  trigger: 'manual',
  created_at: 0,
  finished_at: null,
  error: null,
  inputs: {},
  steps: [],
});

describe('REPL workflow approvals', () => {
  let server: Server;
  let host: HostConnection;
  const calls: string[] = [];
  let pending: PendingApproval[] = [];

  beforeAll(async () => {
    // A stand-in host on loopback that answers the routes the REPL uses as the real one does.
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        calls.push(`${request.method} ${request.url} ${body}`);
        response.setHeader('content-type', 'application/json');
        if (request.url === '/api/status') return response.end(JSON.stringify(status));
        if (request.url === '/api/approvals') return response.end(JSON.stringify({ approvals: pending }));
        if (request.url === '/api/workflows/runs/run-9')
          return response.end(JSON.stringify({ run: run('running') }));
        const decided = /^\/api\/approvals\/run-9%3Areview\/(approve|reject)$/.exec(request.url ?? '');
        const [approval] = pending;
        if (decided && approval) {
          pending = [];
          return response.end(JSON.stringify({ approval, decision: decided[1] }));
        }
        response.statusCode = 404;
        response.end(
          JSON.stringify({
            error: {
              code: 'APPROVAL_UNKNOWN',
              message: 'nothing waits for approval under "run-9:review"',
              retryable: false,
            },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    host = {
      mesh: 't',
      url,
      token: 'unused',
      dataDir: await mkdtemp(path.join(tmpdir(), 'repl-workflow-')),
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
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('offers a step that waits once, approves it with a note (RUN STEP still works), and prints a refusal', async () => {
    pending = [
      {
        kind: 'workflow_step',
        id: 'run-9:review',
        run: 'run-9',
        workflow: 'publish',
        step: 'review',
        waiting_since: 1,
      },
    ];
    const output = capture();
    const lines = [
      '/agents',
      '/approvals',
      '/approve run-9 review looks good',
      '/approve run-9:review',
      '/quit',
    ];
    const code = await runRepl(host, undefined, output, {
      input: Readable.from(lines.map((line) => `${line}\n`)),
      terminal: false,
    });
    expect(code).toBe(0);
    const offers = output
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('⏸'));
    // Once at the start; /approvals lists it again on request; never after it was approved.
    expect(offers).toEqual([
      '⏸ publish run-9: step review waits for approval  (/approve run-9:review)',
      '⏸ publish run-9: step review waits for approval  (/approve run-9:review)',
    ]);
    expect(calls).toContain('POST /api/approvals/run-9%3Areview/approve {"note":"looks good"}');
    expect(output.stdout()).toContain('approved: step review of publish run-9');
    expect(output.stdout()).toContain('workflow publish · run run-9 · running');
    expect(output.stderr()).toContain('nothing waits for approval under "run-9:review"');
  });
});
