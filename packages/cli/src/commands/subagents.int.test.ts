import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { errorBody, type SubagentsList } from '@openlegion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import { runCli } from '../program.js';

const listing: SubagentsList = {
  subagents: [
    {
      id: 'sa-1',
      depth: 1,
      role: 'researcher',
      state: 'done',
      tokens: 1_234,
      task: 'find sources\non tides\u001b[31m',
      started_at: '2026-11-26T10:00:00.000Z',
      ended_at: '2026-11-26T10:00:42.000Z',
    },
    {
      id: 'sa-2',
      depth: 2,
      role: 'checker',
      state: 'running',
      tokens: 0,
      task: 'check the second one',
      started_at: '2026-11-26T10:00:10.000Z',
      ended_at: null,
    },
  ],
};

describe('openlegion subagents', () => {
  let dir: string;
  let meshFile: string;
  let server: Server;
  const calls: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-subagents-'));
    // A stand-in host: agent a has subagents, b none, and any other agent is unknown.
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        calls.push(`${request.method} ${request.url} ${request.headers.authorization}`);
        response.setHeader('content-type', 'application/json');
        if (request.url === '/api/agents/a/subagents/') return response.end(JSON.stringify(listing));
        if (request.url === '/api/agents/b/subagents/') return response.end('{"subagents":[]}');
        response.statusCode = 404;
        response.end(JSON.stringify(errorBody('AGENT_UNKNOWN', 'no agent "zz" (agents: a, b)')));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    meshFile = path.join(dir, 'mesh.yaml');
    await writeFile(
      meshFile,
      `mesh: { name: t, port: ${port}, data_dir: data }\nllm: { providers: { openai: {} } }\nagents: { a: {}, b: {} }\n`,
    );
    await mkdir(path.join(dir, 'data'));
    await writeFile(path.join(dir, 'data', 'operator-token'), 'op-token\n');
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const cli = async (...args: string[]) => {
    const output = capture();
    const code = await runCli(['node', 'openlegion', 'subagents', ...args, '-c', meshFile], output);
    return { code, out: output.stdout(), err: output.stderr() };
  };

  it("lists an agent's subagents through the host, a line each, children indented, the task on one line", async () => {
    expect(await cli('a')).toEqual({
      code: 0,
      out:
        'sa-1  depth 1  done  1234 tokens  started 10:00:00, ended 10:00:42  researcher: find sources on tides [31m\n' +
        '  sa-2  depth 2  running  0 tokens  started 10:00:10, running  checker: check the second one\n',
      err: '',
    });
    expect(calls.at(-1)).toBe('GET /api/agents/a/subagents/ Bearer op-token');
  });

  it('says when an agent has none', async () => {
    expect(await cli('b')).toMatchObject({ code: 0, out: 'b: no subagents since it started\n' });
  });

  it("passes on the host's AGENT_UNKNOWN", async () => {
    expect(await cli('zz')).toMatchObject({
      code: 1,
      out: '',
      err: 'openlegion: no agent "zz" (agents: a, b)\n',
    });
  });
});
