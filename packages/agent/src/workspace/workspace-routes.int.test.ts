import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorBodySchema } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentServer } from '../agent-server.js';
import { WORKSPACE_FILE_MAX_BYTES } from './workspace-routes.js';
import { scaffoldWorkspace } from './workspace-scaffold.js';

const TOKEN = 'workspace-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };

describe('GET|PUT /workspace/*', () => {
  let root: string;
  let workspace: string;
  let app: FastifyInstance;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'workspace-routes-'));
    workspace = join(root, 'workspace');
    await scaffoldWorkspace(workspace);
    writeFileSync(join(root, 'secret.txt'), 'TOP-SECRET');
    app = createAgentServer({
      env: { AGENT_ID: 'a', MESH_TOKEN: TOKEN },
      store: { conversationCount: () => 0 },
      logger: pino({ level: 'silent' }),
      version: '1',
      ready: () => undefined,
      workspace,
    });
  });
  afterEach(async () => {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  });

  const get = (path: string) => app.inject({ method: 'GET', url: `/workspace/${path}`, headers: AUTH });
  const put = (path: string, body: string | Buffer) =>
    app.inject({
      method: 'PUT',
      url: `/workspace/${path}`,
      headers: { ...AUTH, 'content-type': 'text/markdown' },
      payload: body,
    });
  const code = (body: string) => errorBodySchema.parse(JSON.parse(body)).error.code;

  it('lets the operator write a file and read it back', async () => {
    const written = await put('USER.md', '# Ada\n- likes tea\n');
    const read = await get('USER.md');
    expect([written.statusCode, read.body, readFileSync(join(workspace, 'USER.md'), 'utf8')]).toEqual([
      200,
      '# Ada\n- likes tea\n',
      '# Ada\n- likes tea\n',
    ]);
  });

  it('creates the folders of a daily log written through it', async () => {
    await put('memory/2026-03-04.md', 'did things');
    expect(readFileSync(join(workspace, 'memory', '2026-03-04.md'), 'utf8')).toBe('did things');
  });

  it('lists the workspace files', async () => {
    const response = await get('');
    expect(response.json().files.map((file: { path: string }) => file.path)).toEqual([
      'HEARTBEAT.md',
      'MEMORY.md',
      'USER.md',
    ]);
  });

  it('refuses a path with ".." on read and on write', async () => {
    const read = await get('..%2Fsecret.txt');
    const write = await put('memory%2F..%2F..%2Fescape.md', 'x');
    expect([read.statusCode, code(read.body), write.statusCode, code(write.body)]).toEqual([
      400,
      'AGENT_WORKSPACE_PATH_INVALID',
      400,
      'AGENT_WORKSPACE_PATH_INVALID',
    ]);
  });

  it('refuses an absolute path', async () => {
    const response = await get('%2Fetc%2Fpasswd');
    expect(code(response.body)).toBe('AGENT_WORKSPACE_PATH_INVALID');
  });

  it('refuses to follow a symlink out of the workspace, on read and on write', async () => {
    symlinkSync(join(root, 'secret.txt'), join(workspace, 'link.txt'));
    mkdirSync(join(root, 'elsewhere'));
    symlinkSync(join(root, 'elsewhere'), join(workspace, 'out'));
    const read = await get('link.txt');
    const write = await put('out/new.md', 'x');
    expect([code(read.body), code(write.body), read.body.includes('TOP-SECRET')]).toEqual([
      'AGENT_WORKSPACE_PATH_INVALID',
      'AGENT_WORKSPACE_PATH_INVALID',
      false,
    ]);
  });

  it('refuses to create a file through a dangling symlink aimed outside', async () => {
    symlinkSync(join(root, 'planted.txt'), join(workspace, 'dangling.md'));
    const response = await put('dangling.md', 'x');
    expect([response.statusCode, code(response.body)]).toEqual([400, 'AGENT_WORKSPACE_PATH_INVALID']);
    expect(() => readFileSync(join(root, 'planted.txt'))).toThrow();
  });

  it('refuses to write a file that has another name (a hard link)', async () => {
    linkSync(join(workspace, 'MEMORY.md'), join(workspace, 'linked.md'));
    const response = await put('linked.md', 'x');
    expect([response.statusCode, errorBodySchema.parse(response.json()).error]).toEqual([
      400,
      {
        code: 'AGENT_WORKSPACE_PATH_INVALID',
        message:
          'file "linked.md": linked.md has 2 hard links: another name shares its content, and writing it would change that file too, so it is refused. Write a new file instead.',
        retryable: false,
        details: { field: 'file' },
      },
    ]);
  });

  it('refuses to write over a folder', async () => {
    const response = await put('memory', 'x');
    expect([response.statusCode, code(response.body)]).toEqual([400, 'AGENT_WORKSPACE_PATH_INVALID']);
  });

  it('answers a missing file with AGENT_WORKSPACE_FILE_NOT_FOUND', async () => {
    const response = await get('nope.md');
    expect([response.statusCode, code(response.body)]).toEqual([404, 'AGENT_WORKSPACE_FILE_NOT_FOUND']);
  });

  it('refuses a file over the size cap and leaves the old one as it was', async () => {
    const response = await put('MEMORY.md', Buffer.alloc(WORKSPACE_FILE_MAX_BYTES + 1, 'a'));
    expect([response.statusCode, code(response.body)]).toEqual([413, 'AGENT_WORKSPACE_FILE_TOO_LARGE']);
    expect(readFileSync(join(workspace, 'MEMORY.md'), 'utf8')).toContain('Long-term notes');
  });

  it('requires the bearer token', async () => {
    const response = await app.inject({ method: 'GET', url: '/workspace/AGENTS.md' });
    expect(response.statusCode).toBe(401);
  });
});
