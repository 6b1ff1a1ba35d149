import { createServer } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Loopback, listen } from '../../../test/loopback-servers.js';
import { callTool, toolNamed } from '../../../test/tool-harness.js';
import { createHttpRequestTool } from '../web/http-request-tool.js';
import { createMeshClient } from './mesh-client.js';
import { createMeshTools } from './mesh-tools.js';

const TOKEN = 'agent-token-1';
const workspace = '/nonexistent-workspace';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  trace: string | undefined;
  body: unknown;
}
type Answer = { status: number; body: unknown };

/** A stand-in for the host's /mesh routes: checks the bearer token, records calls, answers as told. */
let host: Loopback;
let seen: Seen[] = [];
let answer: (call: Seen) => Answer = () => ({ status: 200, body: {} });

const entry = (key: string, value: unknown, version = 1) => ({
  key,
  value,
  version,
  updated_by: 'writer',
  updated_at: Date.UTC(2026, 0, 1),
  expires_at: null,
});
const hostError = (status: number, code: string, message: string): Answer => ({
  status,
  body: { error: { code, message, retryable: false } },
});

beforeAll(async () => {
  host = await listen(
    createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const call: Seen = {
          method: request.method ?? '',
          url: request.url ?? '',
          authorization: request.headers.authorization,
          trace: request.headers['x-trace-id'] as string | undefined,
          body: text ? JSON.parse(text) : undefined,
        };
        seen.push(call);
        const reply =
          call.authorization === `Bearer ${TOKEN}`
            ? answer(call)
            : hostError(401, 'AUTH_INVALID', 'bad token');
        response
          .writeHead(reply.status, { 'content-type': 'application/json' })
          .end(JSON.stringify(reply.body));
      });
    }),
  );
});
afterAll(() => host.close());
beforeEach(() => {
  seen = [];
});

const tools = () => createMeshTools({ mesh: { meshUrl: host.url, token: TOKEN, traceId: () => 'trace-7' } });
const call = (name: string, args: unknown) => callTool(toolNamed(tools(), name), args, { workspace });

describe('blackboard tools', () => {
  it('gets an entry by key with the bearer token and the trace id, value fenced', async () => {
    answer = () => ({ status: 200, body: { entry: entry('research/a b', { done: true }, 3) } });
    const { text, isError } = await call('blackboard_get', { key: 'research/a b' });
    expect(isError).toBe(false);
    expect(seen[0]).toMatchObject({
      method: 'GET',
      url: '/mesh/blackboard/entries/research/a%20b',
      authorization: `Bearer ${TOKEN}`,
      trace: 'trace-7',
    });
    expect(text).toContain('research/a b (version 3, by writer');
    expect(text).toContain(
      '<untrusted source="blackboard research/a b">\n{\n  "done": true\n}\n</untrusted>',
    );
  });

  it("returns the host's error for a missing key", async () => {
    answer = () => hostError(404, 'MESH_KEY_NOT_FOUND', 'no blackboard entry "x"');
    expect(await call('blackboard_get', { key: 'x' })).toEqual({
      isError: true,
      text: 'MESH_KEY_NOT_FOUND: no blackboard entry "x"',
    });
  });

  it('puts a value with if_version for compare-and-set, and reports a conflict', async () => {
    answer = () => ({ status: 200, body: { entry: entry('plan', 'v2', 2) } });
    const ok = await call('blackboard_put', { key: 'plan', value: 'v2', if_version: 1 });
    expect(seen[0]).toMatchObject({
      method: 'PUT',
      url: '/mesh/blackboard/entries/plan',
      body: { value: 'v2', if_version: 1 },
    });
    expect(ok.text).toBe('wrote plan, now version 2');
    answer = () => hostError(409, 'MESH_VERSION_CONFLICT', 'plan is at version 3, not 1');
    const conflict = await call('blackboard_put', { key: 'plan', value: 'v2', if_version: 1 });
    expect(conflict).toEqual({ isError: true, text: 'MESH_VERSION_CONFLICT: plan is at version 3, not 1' });
  });

  it('lists entries by prefix with value previews', async () => {
    answer = () => ({
      status: 200,
      body: { entries: [entry('research/a', 'x'.repeat(500)), entry('research/b', 2)] },
    });
    const { text } = await call('blackboard_list', { prefix: 'research/' });
    expect(seen[0]?.url).toBe('/mesh/blackboard/entries?prefix=research%2F&limit=100');
    expect(text).toMatch(/^2 entries\n/);
    expect(text).toContain('research/b (version 1');
    expect(text).toContain('…');
    expect(text.length).toBeLessThan(800);
  });

  it('turns a permission refusal into an error carrying the host message', async () => {
    answer = () => hostError(403, 'MESH_FORBIDDEN', 'agent "a" may not write "secret/x"');
    expect(await call('blackboard_put', { key: 'secret/x', value: 1 })).toEqual({
      isError: true,
      text: 'MESH_FORBIDDEN: agent "a" may not write "secret/x"',
    });
  });
});

describe('publish and message_agent', () => {
  it('publishes a payload on a topic', async () => {
    answer = () => ({
      status: 201,
      body: {
        event: {
          id: 12,
          topic: 'research.done',
          payload: {},
          published_by: 'a',
          published_at: 1,
          trace_id: null,
        },
      },
    });
    const { text } = await call('publish', { topic: 'research.done', payload: { ok: 1 } });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/mesh/pubsub/publish',
      body: { topic: 'research.done', payload: { ok: 1 } },
    });
    expect(text).toBe('published event 12 on research.done');
  });

  it('sends a message and returns at once', async () => {
    answer = () => ({ status: 202, body: { item_id: 'it-1', trace_id: 't', to: 'writer' } });
    const { text } = await call('message_agent', { to: 'writer', message: 'draft the intro' });
    expect(seen[0]?.body).toEqual({ to: 'writer', message: 'draft the intro', mode: 'send' });
    expect(text).toContain('sent to writer (item it-1)');
  });

  it("asks and returns the other agent's reply fenced as untrusted", async () => {
    answer = () => ({
      status: 200,
      body: { item_id: 'it-2', trace_id: 't', to: 'writer', reply: 'Intro done.\u200B' },
    });
    const { text } = await call('message_agent', {
      to: 'writer',
      message: 'done?',
      mode: 'ask',
      timeout_s: 30,
    });
    expect(seen[0]?.body).toEqual({ to: 'writer', message: 'done?', mode: 'ask', timeout_s: 30 });
    expect(text).toBe('writer replied:\n<untrusted source="agent writer">\nIntro done.\n</untrusted>');
  });

  it('reports an ask timeout from the host', async () => {
    answer = () => hostError(504, 'MESH_ASK_TIMEOUT', 'agent "writer" did not answer within 30 s');
    const result = await call('message_agent', { to: 'writer', message: 'x', mode: 'ask', timeout_s: 30 });
    expect(result).toMatchObject({ isError: true, text: expect.stringMatching(/^MESH_ASK_TIMEOUT/) });
  });

  it('reports an unreachable host as MESH_NOT_RUNNING', async () => {
    const closed = await listen(createServer());
    await closed.close();
    const offline = createMeshTools({ mesh: { meshUrl: closed.url, token: TOKEN } });
    const result = await callTool(toolNamed(offline, 'publish'), { topic: 'a.b', payload: 1 }, { workspace });
    expect(result).toMatchObject({
      isError: true,
      text: expect.stringMatching(/^MESH_NOT_RUNNING: POST \/mesh\/pubsub\/publish: host unreachable/),
    });
  });
});

describe('http_request', () => {
  const tool = () => createHttpRequestTool(createMeshClient({ meshUrl: host.url, token: TOKEN }));

  it('passes $CRED{} through untouched to /mesh/http and fences the answer body', async () => {
    answer = () => ({
      status: 200,
      body: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"login":"octo"}',
        truncated: false,
      },
    });
    const args = {
      url: 'https://api.example.org/user',
      headers: { authorization: 'Bearer $CRED{GITHUB_TOKEN}' },
    };
    const { text, isError } = await callTool(tool(), args, { workspace });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/mesh/http',
      body: {
        method: 'GET',
        url: args.url,
        headers: { authorization: 'Bearer $CRED{GITHUB_TOKEN}' },
        query: {},
        timeout_s: 30,
      },
    });
    expect(isError).toBe(false);
    expect(text).toBe(
      'HTTP 200\ncontent-type: application/json\n<untrusted source="http_request GET https://api.example.org/user">\n{"login":"octo"}\n</untrusted>',
    );
  });

  it("marks an error status as an error and shows the host's truncation", async () => {
    answer = () => ({ status: 200, body: { status: 500, headers: {}, body: 'boom', truncated: true } });
    const { text, isError } = await callTool(
      tool(),
      { url: 'https://api.example.org/x', method: 'POST', body: { a: 1 } },
      { workspace },
    );
    expect(isError).toBe(true);
    expect(text).toContain('HTTP 500');
    expect(text).toContain('the host cut the body at its 1 MB cap');
    expect(seen[0]?.body).toMatchObject({ method: 'POST', body: { a: 1 } });
  });

  it('returns an egress refusal as an error with the host message', async () => {
    answer = () => hostError(403, 'MESH_FORBIDDEN', 'egress refused: evil.example is not allowed');
    const result = await callTool(tool(), { url: 'https://evil.example/' }, { workspace });
    expect(result).toEqual({
      isError: true,
      text: 'MESH_FORBIDDEN: egress refused: evil.example is not allowed',
    });
  });

  it('sends no request for a URL that is not http(s)', () => {
    expect(tool().input.safeParse({ url: 'file:///etc/passwd' }).success).toBe(false);
  });
});
