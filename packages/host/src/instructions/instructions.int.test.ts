import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentInstructionsSchema, errorBodySchema, INSTRUCTION_FILE_MAX_BYTES } from '@openlegion/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeAgentRuntime } from '../../test/fake-agent-runtime.js';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { TokenRegistry } from '../auth/index.js';
import { fleetFeature } from '../fleet/index.js';
import { operatorFeature } from '../operator/index.js';
import { AGENT_REGISTRY, registryFeature } from '../registry/index.js';
import { instructionsFeature } from './index.js';

/** A stand-in agent: answers every request with what it was asked, so a test sees what was forwarded. */
async function startStandInAgent(): Promise<{ url: string; received: string[]; close(): Promise<void> }> {
  const received: string[] = [];
  const server: Server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    received.push(`${req.method} ${req.url} ${body}`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`agent workspace ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('instructions (AGENTS.md and SOUL.md held by the host)', () => {
  let host: FeatureTestHost;
  let standIn: Awaited<ReturnType<typeof startStandInAgent>>;

  beforeAll(async () => {
    standIn = await startStandInAgent();
    const tokens = new TokenRegistry();
    const fleet = fleetFeature({ runtime: new FakeAgentRuntime(), beforeLaunch: async () => {} });
    const instructions = instructionsFeature();
    host = await startFeatureTestHost(
      [
        registryFeature(),
        instructions,
        operatorFeature({
          meshStatus: () => {
            throw new Error('not used');
          },
          onShutdown: () => {},
        }),
        fleet,
      ],
      { llm: { providers: { openai: {} } }, agents: { a: {}, b: {} } },
      { tokens, start: false },
    );
    tokens.mint('a');
    tokens.mint('b');
    const registry = host.service(AGENT_REGISTRY);
    registry.register({ name: 'a', runtime: 'process', model: 'openai/gpt-4.1-mini', url: standIn.url });
    registry.markReady('a');
  });
  afterAll(async () => {
    await host.stop();
    await standIn.close();
  });
  afterEach(() => {
    standIn.received.length = 0;
    host.context.db.exec('DELETE FROM agent_instructions');
  });

  const put = (agent: string, file: string, body: string | Buffer) =>
    host.app.inject({
      method: 'PUT',
      url: `/api/agents/${agent}/workspace/${file}`,
      headers: { ...host.operatorAuth, 'content-type': 'text/markdown' },
      payload: body,
    });
  const get = (agent: string, file: string) =>
    host.app.inject({
      method: 'GET',
      url: `/api/agents/${agent}/workspace/${file}`,
      headers: host.operatorAuth,
    });
  const instructionsOf = (agent: string, headers: Record<string, string> = {}) =>
    host.app.inject({
      method: 'GET',
      url: '/mesh/instructions',
      headers: { ...host.agentAuth(agent), ...headers },
    });
  const error = (body: string) => errorBodySchema.parse(JSON.parse(body)).error;

  it("stores the operator's AGENTS.md on the host, never in the agent's workspace", async () => {
    const written = await put('a', 'AGENTS.md', '# Rules\n- cite sources\n');
    const read = await get('a', 'AGENTS.md');
    expect([written.statusCode, written.json(), read.statusCode, read.body, standIn.received]).toEqual([
      200,
      { file: 'AGENTS.md', bytes: 23, version: 1 },
      200,
      '# Rules\n- cite sources\n',
      [],
    ]);
  });

  it('routes AGENTS.md and SOUL.md to the host copy whatever their case or spelling', async () => {
    await put('a', 'agents.md', 'lower');
    await put('a', '.%2FSoul.MD', 'mixed');
    const served = agentInstructionsSchema.parse((await instructionsOf('a')).json());
    expect([served.files, standIn.received]).toEqual([{ 'AGENTS.md': 'lower', 'SOUL.md': 'mixed' }, []]);
  });

  it('serves the agent its own files, with a version that grows with every write', async () => {
    await put('a', 'AGENTS.md', 'rules v1');
    await put('a', 'SOUL.md', 'terse');
    await put('b', 'AGENTS.md', 'rules of b');
    const response = await instructionsOf('a');
    expect([response.statusCode, response.headers.etag, response.json()]).toEqual([
      200,
      '"2"',
      { version: 2, files: { 'AGENTS.md': 'rules v1', 'SOUL.md': 'terse' } },
    ]);
  });

  it('answers 304 to an agent that already has the current version, and 200 after a write', async () => {
    await put('a', 'AGENTS.md', 'rules v1');
    const same = await instructionsOf('a', { 'if-none-match': '"1"' });
    await put('a', 'AGENTS.md', 'rules v2');
    const changed = await instructionsOf('a', { 'if-none-match': '"1"' });
    expect([same.statusCode, same.body, changed.statusCode, changed.json().files['AGENTS.md']]).toEqual([
      304,
      '',
      200,
      'rules v2',
    ]);
  });

  it('tells an agent with no files that the host holds none (version 0, nulls)', async () => {
    expect((await instructionsOf('b')).json()).toEqual({
      version: 0,
      files: { 'AGENTS.md': null, 'SOUL.md': null },
    });
  });

  it('requires an agent token for /mesh/instructions', async () => {
    const none = await host.app.inject({ method: 'GET', url: '/mesh/instructions' });
    const operator = await host.app.inject({
      method: 'GET',
      url: '/mesh/instructions',
      headers: host.operatorAuth,
    });
    expect([none.statusCode, error(none.body).code, operator.statusCode, error(operator.body).code]).toEqual([
      401,
      'AUTH_MISSING',
      403,
      'AUTH_FORBIDDEN',
    ]);
  });

  it('refuses an agent token on the operator route that writes the host copy', async () => {
    const response = await host.app.inject({
      method: 'PUT',
      url: '/api/agents/a/workspace/AGENTS.md',
      headers: { ...host.agentAuth('a'), 'content-type': 'text/markdown' },
      payload: 'obey me',
    });
    expect([
      response.statusCode,
      error(response.body).code,
      (await instructionsOf('a')).json().version,
    ]).toEqual([403, 'AUTH_FORBIDDEN', 0]);
  });

  it('answers 404 naming the template while the host holds no copy', async () => {
    const response = await get('b', 'SOUL.md');
    expect([response.statusCode, error(response.body)]).toEqual([
      404,
      {
        code: 'AGENT_WORKSPACE_FILE_NOT_FOUND',
        message:
          'the host holds no SOUL.md for agent "b": it uses its built-in template. Write one with PUT /api/agents/b/workspace/SOUL.md',
        retryable: false,
        details: { agent: 'b', file: 'SOUL.md' },
      },
    ]);
  });

  it('refuses a file over the size limit, text that is not UTF-8, and an unknown agent', async () => {
    const large = await put('a', 'AGENTS.md', Buffer.alloc(INSTRUCTION_FILE_MAX_BYTES + 1, 'a'));
    const binary = await put('a', 'AGENTS.md', Buffer.from([0xff, 0xfe, 0x00]));
    const unknown = await put('nobody', 'AGENTS.md', 'x');
    expect([large.statusCode, error(large.body).message]).toEqual([
      413,
      `AGENTS.md is ${INSTRUCTION_FILE_MAX_BYTES + 1} bytes; the limit is ${INSTRUCTION_FILE_MAX_BYTES}`,
    ]);
    expect([binary.statusCode, error(binary.body).message]).toEqual([
      400,
      'AGENTS.md must be UTF-8 text; send the file as it is',
    ]);
    expect([unknown.statusCode, error(unknown.body).code]).toEqual([404, 'AGENT_UNKNOWN']);
    expect((await instructionsOf('a')).json().version).toBe(0);
  });

  it('keeps a PUT with ?from=workspace on the host copy: only a read reaches the agent', async () => {
    const written = await put('a', 'AGENTS.md?from=workspace', 'host rules');
    expect([
      written.statusCode,
      (await instructionsOf('a')).json().files['AGENTS.md'],
      standIn.received,
    ]).toEqual([200, 'host rules', []]);
  });

  it("still forwards other workspace files, and the agent's own AGENTS.md when asked ?from=workspace", async () => {
    const notes = await put('a', 'notes%2FAGENTS.md', 'a note');
    const old = await host.app.inject({
      method: 'GET',
      url: '/api/agents/a/workspace/AGENTS.md?from=workspace',
      headers: host.operatorAuth,
    });
    expect([notes.statusCode, old.body, standIn.received]).toEqual([
      200,
      'agent workspace /workspace/AGENTS.md?from=workspace',
      ['PUT /workspace/notes/AGENTS.md a note', 'GET /workspace/AGENTS.md?from=workspace '],
    ]);
  });
});
