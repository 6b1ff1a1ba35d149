import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import { runCli } from '../program.js';

describe('openlegion instructions', () => {
  let dir: string;
  let meshFile: string;
  let server: Server;
  const calls: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-instructions-'));
    // A stand-in host: the host's copy of AGENTS.md, and the agent's workspace copy for ?from=workspace.
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        calls.push(`${request.method} ${request.url} ${request.headers['content-type'] ?? '-'} ${body}`);
        if (request.method === 'PUT') {
          response.setHeader('content-type', 'application/json');
          response.end(JSON.stringify({ file: 'AGENTS.md', bytes: Buffer.byteLength(body), version: 3 }));
        } else if (request.url?.endsWith('?from=workspace')) response.end('old workspace rules\n');
        else response.end('host rules\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    meshFile = path.join(dir, 'mesh.yaml');
    await writeFile(
      meshFile,
      `mesh: { name: t, port: ${port}, data_dir: data }\nllm: { providers: { openai: {} } }\nagents: { a: {} }\n`,
    );
    await mkdir(path.join(dir, 'data'));
    await writeFile(path.join(dir, 'data', 'operator-token'), 'op-token\n');
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const cli = async (...args: string[]) => {
    const output = capture();
    const code = await runCli(['node', 'openlegion', 'instructions', ...args, '-c', meshFile], output);
    return { code, out: output.stdout(), err: output.stderr() };
  };

  it("prints the host's copy, or the agent's old workspace copy with --from-workspace", async () => {
    expect(await cli('a', 'agents.md')).toMatchObject({ code: 0, out: 'host rules\n' });
    expect(await cli('a', 'AGENTS.md', '--from-workspace')).toMatchObject({
      code: 0,
      out: 'old workspace rules\n',
    });
    expect(calls.slice(-2).map((call) => call.split(' ').slice(0, 2).join(' '))).toEqual([
      'GET /api/agents/a/workspace/AGENTS.md',
      'GET /api/agents/a/workspace/AGENTS.md?from=workspace',
    ]);
  });

  it('stores a file as the new text', async () => {
    const file = path.join(dir, 'rules.md');
    await writeFile(file, '# Rules\n- cite sources\n');
    expect(await cli('a', 'AGENTS.md', '--set', file)).toEqual({
      code: 0,
      out: '',
      err: 'AGENTS.md of a stored (23 bytes, version 3)\n',
    });
    expect(calls.at(-1)).toBe(
      'PUT /api/agents/a/workspace/AGENTS.md text/markdown; charset=utf-8 # Rules\n- cite sources\n',
    );
  });

  it('refuses a name that is not AGENTS.md or SOUL.md', async () => {
    expect(await cli('a', 'USER.md')).toMatchObject({
      code: 1,
      err: 'openlegion: "USER.md" is not AGENTS.md or SOUL.md\n',
    });
  });
});
