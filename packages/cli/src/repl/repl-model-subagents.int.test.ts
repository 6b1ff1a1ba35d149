import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createJsonClient } from '@openlegion/infra/http';
import { type ChatEvent, formatSseEvent, type MeshStatus, type SubagentsList } from '@openlegion/protocol';
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
  agents: [readyAgentInfo('writer'), readyAgentInfo('researcher')],
  warnings: [],
};

const listing: SubagentsList = {
  subagents: [
    {
      id: 'sa-1',
      depth: 1,
      role: 'reader',
      state: 'running',
      tokens: 310,
      task: 'read the first source',
      started_at: '2026-11-26T10:00:00.000Z',
      ended_at: null,
    },
  ],
};

describe('REPL /model and /subagents', () => {
  let server: Server;
  let host: HostConnection;
  const chats: { agent: string; message: string; conversation_id?: string }[] = [];
  const gets: string[] = [];

  beforeAll(async () => {
    // A stand-in host on loopback: status, subagents listings, and a chat answering like the
    // agent's /model directive (a notice, then done with no text).
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        const url = request.url ?? '';
        response.setHeader('content-type', 'application/json');
        if (url === '/api/status') return response.end(JSON.stringify(status));
        if (url === '/api/approvals') return response.end(JSON.stringify({ approvals: [] }));
        if (url.endsWith('/subagents/')) {
          gets.push(url);
          return response.end(JSON.stringify(url.includes('/writer/') ? listing : { subagents: [] }));
        }
        const agent = /^\/api\/agents\/([^/]+)\/chat/.exec(url)?.[1] ?? '?';
        chats.push({ agent, ...(JSON.parse(body) as { message: string; conversation_id?: string }) });
        response.setHeader('content-type', 'text/event-stream');
        const events: ChatEvent[] = [
          { type: 'notice', message: 'model for this conversation: fast (was openai/gpt-4.1)' },
          { type: 'done', conversation_id: 'default', text: '' },
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
      dataDir: await mkdtemp(path.join(tmpdir(), 'repl-model-')),
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

  const repl = async (lines: string[]) => {
    const output = capture();
    const code = await runRepl(host, undefined, output, {
      input: Readable.from([...lines, '/quit'].map((line) => `${line}\n`)),
      terminal: false,
    });
    return { code, out: output.stdout(), err: output.stderr() };
  };

  it("sends /model as the agent's directive in this session's conversation and shows its notice", async () => {
    chats.length = 0;
    const { code, err } = await repl(['/model fast', '/model', '/use researcher', '/model   reset ']);
    expect(code).toBe(0);
    expect(err).toContain('  · model for this conversation: fast (was openai/gpt-4.1)\n');
    expect(chats.map(({ agent, message }) => [agent, message])).toEqual([
      ['writer', '/model fast'],
      ['writer', '/model'],
      ['researcher', '/model reset'],
    ]);
    // The same conversation as the session's messages to that agent, so the switch applies to them.
    expect(chats.map((chat) => chat.conversation_id)).toEqual(['default', 'default', 'default']);
  });

  it("lists the current agent's subagents, or another's, and lists /model and /subagents in /help", async () => {
    gets.length = 0;
    const { out } = await repl(['/subagents', '/subagents researcher', '/help']);
    expect(gets).toEqual(['/api/agents/writer/subagents/', '/api/agents/researcher/subagents/']);
    expect(out).toContain(
      'sa-1  depth 1  running  310 tokens  started 10:00:00, running  reader: read the first source\n',
    );
    expect(out).toContain('researcher: no subagents since it started\n');
    expect(out).toMatch(/\/model \[NAME\|reset\] +the current agent's model for this conversation/);
    expect(out).toMatch(/\/subagents \[NAME\] +an agent's subagents/);
  });
});
