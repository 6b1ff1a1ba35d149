import { createServer } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Loopback, listen } from '../../../test/loopback-servers.js';
import { callTool } from '../../../test/tool-harness.js';
import { createMeshClient } from '../mesh/mesh-client.js';
import { createWebSearchTool } from './web-search-tool.js';

const TOKEN = 'agent-token-1';
const workspace = '/nonexistent-workspace';

/** A stand-in for the host's POST /mesh/search: records the calls, answers as told. */
let host: Loopback;
let seen: { url: string; body: unknown; trace: string | undefined }[] = [];
let answer: () => { status: number; body: unknown } = () => ({ status: 200, body: {} });

beforeAll(async () => {
  host = await listen(
    createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        seen.push({
          url: request.url ?? '',
          body: text ? JSON.parse(text) : undefined,
          trace: request.headers['x-trace-id'] as string | undefined,
        });
        const reply =
          request.headers.authorization === `Bearer ${TOKEN}`
            ? answer()
            : {
                status: 401,
                body: { error: { code: 'AUTH_INVALID', message: 'bad token', retryable: false } },
              };
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

const tool = () => createWebSearchTool(createMeshClient({ meshUrl: host.url, token: TOKEN }));
const hostError = (status: number, code: string, message: string, retryable = false) => ({
  status,
  body: { error: { code, message, retryable } },
});

describe('web_search', () => {
  it('asks the host and lists the results numbered, fenced as untrusted', async () => {
    answer = () => ({
      status: 200,
      body: {
        query: 'sqlite vec',
        results: [
          {
            title: 'sqlite-vec',
            url: 'https://github.com/asg017/sqlite-vec',
            snippet: 'A vector search SQLite extension',
            published: '2024-08-01',
            provider: 'brave',
          },
          { title: 'Docs', url: 'https://alexgarcia.xyz/sqlite-vec/', snippet: '', provider: 'brave' },
        ],
        providers: ['brave'],
        cached: false,
        skipped: [{ provider: 'searxng', reason: 'answered 503' }],
      },
    });
    const { text, isError } = await callTool(
      tool(),
      { query: 'sqlite vec', count: 2, freshness: 'year' },
      { workspace, traceId: 'trace-1' },
    );
    expect(seen[0]).toEqual({
      url: '/mesh/search',
      body: { query: 'sqlite vec', count: 2, freshness: 'year' },
      trace: 'trace-1',
    });
    expect(isError).toBe(false);
    expect(text).toBe(
      [
        '2 results for "sqlite vec" (brave; searxng skipped: answered 503):',
        '<untrusted source="web_search sqlite vec">',
        '1. sqlite-vec',
        '   https://github.com/asg017/sqlite-vec',
        '   A vector search SQLite extension',
        '   published 2024-08-01',
        '2. Docs',
        '   https://alexgarcia.xyz/sqlite-vec/',
        '</untrusted>',
      ].join('\n'),
    );
  });

  it('says when nothing was found', async () => {
    answer = () => ({
      status: 200,
      body: { query: 'zzqx', results: [], providers: ['searxng'], cached: true, skipped: [] },
    });
    const { text, isError } = await callTool(tool(), { query: 'zzqx' }, { workspace });
    expect(isError).toBe(false);
    expect(text).toBe('0 results for "zzqx" (searxng; from the cache). Try other or fewer words.');
  });

  it.each([
    [
      hostError(
        403,
        'MESH_FORBIDDEN',
        'agent "a" may not search the web: add "search: true" under agents.a.permissions in mesh.yaml',
      ),
      'MESH_FORBIDDEN: agent "a" may not search the web: add "search: true" under agents.a.permissions in mesh.yaml',
    ],
    [
      hostError(400, 'SEARCH_QUERY_INVALID', 'query is empty: say what to search for'),
      'SEARCH_QUERY_INVALID: query is empty: say what to search for',
    ],
    [
      hostError(503, 'SEARCH_UNAVAILABLE', 'no search provider answered: brave: answered 503', true),
      'SEARCH_UNAVAILABLE: no search provider answered: brave: answered 503',
    ],
  ])('turns a refusal into an error result the model can read', async (reply, message) => {
    answer = () => reply;
    const { text, isError } = await callTool(tool(), { query: 'x' }, { workspace });
    expect(isError).toBe(true);
    expect(text).toBe(message);
  });
});
