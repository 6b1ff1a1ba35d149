import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkflowRunView } from '@openlegion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import { runCli } from '../program.js';

const view: WorkflowRunView = {
  id: 'run-7',
  workflow: 'publish',
  state: 'running',
  trigger: 'manual',
  created_at: Date.now(),
  finished_at: null,
  error: null,
  inputs: { topic: 'tides' },
  steps: [
    {
      id: 'gate',
      agent: null,
      state: 'waiting_approval',
      depends_on: [],
      requires_approval: true,
      attempts: 0,
      started_at: null,
      finished_at: null,
      duration_ms: null,
      cost_usd: null,
      output_preview: null,
      error: null,
      items: null,
    },
  ],
};

describe('openlegion workflow', () => {
  let dir: string;
  let meshFile: string;
  let server: Server;
  const calls: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-workflow-'));
    // A stand-in host on loopback that answers the workflow routes as the real one does.
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        calls.push(`${request.method} ${request.url} ${request.headers.authorization} ${body}`);
        response.setHeader('content-type', 'application/json');
        if (request.url === '/api/workflows/runs/ghost/steps/gate/approve') {
          response.statusCode = 409;
          response.end(
            JSON.stringify({
              error: {
                code: 'WORKFLOW_NOT_WAITING',
                message: 'step gate of run ghost is done, not waiting for approval',
                retryable: false,
              },
            }),
          );
        } else if (request.url === '/api/workflows') {
          response.end(
            JSON.stringify({
              workflows: [
                {
                  name: 'publish',
                  file: 'workflows/publish.yaml',
                  description: 'write and ship',
                  trigger: 'manual',
                  steps: 1,
                  inputs: [{ name: 'topic', type: 'string', required: true }],
                  problems: [],
                },
              ],
            }),
          );
        } else {
          response.statusCode = request.method === 'POST' && request.url?.endsWith('/runs') ? 201 : 200;
          response.end(JSON.stringify({ run: view }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    meshFile = path.join(dir, 'mesh.yaml');
    await writeFile(
      meshFile,
      `mesh: { name: t, port: ${port}, data_dir: data }\nllm: { providers: { openai: {} } }\nagents: { writer: {}, checker: {} }\n`,
    );
    await mkdir(path.join(dir, 'data'));
    await writeFile(path.join(dir, 'data', 'operator-token'), 'op-token\n');
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const cli = async (...args: string[]) => {
    const output = capture();
    const code = await runCli(['node', 'openlegion', 'workflow', ...args, '-c', meshFile], output);
    return { code, out: output.stdout(), err: output.stderr() };
  };

  it('validates a file against mesh.yaml without a host, printing each problem located', async () => {
    const good = path.join(dir, 'good.yaml');
    await writeFile(good, 'name: good\nsteps: [{ id: a, agent: writer, task: t }]\n');
    expect(await cli('validate', good)).toMatchObject({
      code: 0,
      out: `${good}: ok (workflow good, 1 steps)\n`,
    });
    const bad = path.join(dir, 'bad.yaml');
    await writeFile(bad, 'name: bad\nsteps:\n  - { id: a, agent: editor, task: "${steps.b.output}" }\n');
    const result = await cli('validate', bad);
    expect(result.code).toBe(1);
    expect(result.err.split('\n')).toEqual([
      `${bad}:3:21 steps.0.agent: no agent "editor" in mesh.yaml (agents: writer, checker)`,
      `${bad}:3:35 steps.0.task: steps.b.output: no step "b" (steps: a)`,
      `${bad}: 2 problems`,
      '',
    ]);
  });

  it('lists workflows, starts a run with typed inputs and draws it, with the operator token', async () => {
    expect((await cli('list')).out).toBe(
      'publish  1 steps  manual  inputs topic:string  (workflows/publish.yaml)\n    write and ship\n',
    );
    const started = await cli('run', 'publish', '--input', 'topic=tides', '-i', 'n=3');
    expect(started.code).toBe(0);
    expect(started.out).toContain('started run-7\nworkflow publish · run run-7 · running');
    expect(started.out).toContain('openlegion workflow approve run-7 gate');
    expect(calls.at(-1)).toBe(
      'POST /api/workflows/publish/runs Bearer op-token {"inputs":{"topic":"tides","n":"3"}}',
    );
    expect((await cli('run', 'publish', '--input', 'oops')).err).toContain('use key=value, not "oops"');
  });

  it('approves, rejects, cancels and shows a run through the host, and prints its refusals', async () => {
    await cli('approve', 'run-7', 'gate', '--note', 'ship it');
    expect(calls.at(-1)).toBe(
      'POST /api/workflows/runs/run-7/steps/gate/approve Bearer op-token {"note":"ship it"}',
    );
    await cli('reject', 'run-7', 'gate');
    expect(calls.at(-1)).toBe('POST /api/workflows/runs/run-7/steps/gate/reject Bearer op-token {}');
    await cli('cancel', 'run-7');
    expect(calls.at(-1)).toMatch(/^POST \/api\/workflows\/runs\/run-7\/cancel /);
    expect((await cli('status', 'run-7')).out).toMatch(/^workflow publish · run run-7 · running/);
    const refused = await cli('approve', 'ghost', 'gate');
    expect(refused).toMatchObject({
      code: 1,
      err: 'openlegion: step gate of run ghost is done, not waiting for approval\n',
    });
  });
});
