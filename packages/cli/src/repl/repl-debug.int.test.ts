import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createJsonClient } from '@openlegion/infra/http';
import { type ChatEvent, formatSseEvent, type MeshStatus } from '@openlegion/protocol';
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

const recall: ChatEvent = {
  type: 'recall',
  memories: [
    {
      id: 12,
      category: 'preferences',
      scope: 'agent:writer',
      source: 'tool',
      saved_at: '2026-11-20T10:00:00.000Z',
      chars: 41,
      clipped: false,
      untrusted: false,
    },
    {
      id: 15,
      category: 'entities',
      scope: 'global',
      source: 'flush',
      saved_at: '2026-11-21T08:30:00.000Z',
      chars: 300,
      clipped: true,
      untrusted: true,
    },
  ],
  chars: 512,
  tokens: 130,
  ms: 1.7,
  budget_chars: 2_000,
  held: 1,
};

describe('REPL /debug', () => {
  let server: Server;
  let host: HostConnection;

  beforeAll(async () => {
    // A stand-in host on loopback: the status route, and a chat that streams a recall report.
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (request.url === '/api/status') {
          response.setHeader('content-type', 'application/json');
          return response.end(JSON.stringify(status));
        }
        if (request.url === '/api/approvals') {
          response.setHeader('content-type', 'application/json');
          return response.end(JSON.stringify({ approvals: [] }));
        }
        response.setHeader('content-type', 'text/event-stream');
        const events: ChatEvent[] = [
          recall,
          { type: 'text_delta', text: 'Tea, as you like it.' },
          { type: 'done', conversation_id: 'default', text: 'Tea, as you like it.' },
        ];
        response.end(events.map(formatSseEvent).join(''));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    host = {
      mesh: 't',
      url,
      token: 'unused',
      dataDir: await mkdtemp(path.join(tmpdir(), 'repl-debug-')),
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

  it('says nothing was recalled before a turn, then shows what the last turn recalled', async () => {
    const output = capture();
    const lines = ['/debug', 'what do I drink?', '/debug', '/quit'];
    const code = await runRepl(host, undefined, output, {
      input: Readable.from(lines.map((line) => `${line}\n`)),
      terminal: false,
    });
    expect(code).toBe(0);
    const out = output.stdout();
    expect(out).toContain('writer: no recall for the last turn (none yet, or memory.recall_chars is 0)');
    expect(out).toContain(
      'writer: recall for the last turn: 2 memories, 512/2000 chars (~130 tokens), 1.7 ms, 1 left out (already in the prompt)\n' +
        '  #12 preferences · agent:writer · saved 2026-11-20 10:00 · tool · 41 chars\n' +
        '  #15 entities · global · saved 2026-11-21 08:30 · flush · 300 chars [untrusted, clipped]\n',
    );
  });
});
