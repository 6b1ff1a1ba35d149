import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findFreePort } from '@openlegion/infra/http';
import { createLogger } from '@openlegion/infra/log';
import { ERROR_CODES, meshConfigSchema } from '@openlegion/protocol';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeAgentRuntime } from '../../test/fake-agent-runtime.js';
import type { LoadedMeshConfig } from '../config/index.js';
import { createMeshHost } from '../mesh-host.js';
import type { MeshHost } from '../mesh-host-options.js';
import type { HostRoute } from './build-host-app.js';

/**
 * Every route of the real host app, enumerated from the app itself (so a route added later is
 * fuzzed without a change here), gets hostile bodies, queries, path parameters and headers from
 * its rightful caller and from strangers. Whatever arrives, the host answers with a clear error
 * body (never a 500 or INTERNAL), does not crash, and keeps answering `/healthz` promptly.
 */

/** Runs per route and caller; raise with FUZZ_RUNS for a longer hunt. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
/**
 * CI replays one seed, so a red run is a fault, not luck; FUZZ_SEED=random (or a number) hunts
 * further. A failure prints the seed that reproduces it.
 */
const SEED = process.env.FUZZ_SEED === 'random' ? undefined : Number(process.env.FUZZ_SEED ?? 20_261_125);
/** A route may legitimately wait (an `ask`, a stream): past this the request is dropped, not failed. */
const WAIT_MS = 2_000;
/** The host must answer its health check this quickly after each route's batch. */
const HEALTH_MS = 1_000;
/** Routes that end the host (fuzzed by their own tests, not here). */
const SKIPPED = new Set(['POST /api/shutdown']);
/** Methods a fetch client cannot send (a catch-all route registers them too). */
const UNSENDABLE = new Set(['TRACE', 'CONNECT', 'QUERY']);

/** Body keys the routes read, so fuzzed bodies reach past the first validation often. */
const BODY_KEYS = [
  'message',
  'messages',
  'model',
  'stream',
  'input',
  'topic',
  'payload',
  'pattern',
  'delivery',
  'value',
  'if_version',
  'ttl_s',
  'to',
  'timeout_s',
  'url',
  'method',
  'headers',
  'query',
  'body',
  'schedule',
  'conversation_id',
  'mode',
  'text',
  'subscription',
  'event_id',
  'decision',
  'inputs',
  'name',
  'max_tokens',
  'tools',
  'tool_choice',
  'agent',
  'reason',
  'id',
  'kind',
] as const;
const QUERY_KEYS = ['pattern', 'prefix', 'limit', 'topic', 'subscription', 'if_version', 'since', 'agent'];

const pathPart = fc.oneof(
  fc.constantFrom('alpha', 'beta', 'nobody', '1', '0', '-1', '..', '%2e%2e', '%00', 'a'.repeat(300)),
  fc.string({ maxLength: 24 }).map(encodeURIComponent),
);
const hostileString = fc.oneof(
  fc.string({ maxLength: 64 }),
  fc.constantFrom('*'.repeat(40), '**.'.repeat(30), `${'*'.repeat(22)}!`, '\u0000', '../../etc/passwd'),
  fc.nat({ max: 2 ** 40 }).map(String),
  fc.integer({ min: 1_000, max: 70_000 }).map((size) => 'x'.repeat(size)),
);
const jsonBody = fc.oneof(
  fc.dictionary(fc.constantFrom(...BODY_KEYS), fc.oneof(fc.jsonValue({ maxDepth: 3 }), hostileString), {
    maxKeys: 6,
  }),
  fc.jsonValue({ maxDepth: 4 }),
);
const request = fc.record({
  params: fc.array(pathPart, { minLength: 1, maxLength: 4 }),
  query: fc.dictionary(
    fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ maxLength: 12 })),
    hostileString,
    {
      maxKeys: 4,
    },
  ),
  body: fc.oneof(
    {
      weight: 6,
      arbitrary: jsonBody.map((value) => ({ type: 'application/json', text: JSON.stringify(value) })),
    },
    {
      weight: 1,
      arbitrary: fc.string({ maxLength: 200 }).map((text) => ({ type: 'application/json', text })),
    },
    { weight: 1, arbitrary: hostileString.map((text) => ({ type: 'text/plain', text })) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  ),
  // Header values as a client can send them (fetch refuses control characters itself).
  traceId: fc.option(
    hostileString.map((text) => text.replace(/[^\x21-\x7e]/g, '').slice(0, 4_000)),
    { nil: undefined },
  ),
  caller: fc.constantFrom('rightful', 'rightful', 'rightful', 'other', 'garbage', 'none'),
});

type FuzzRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

describe('route fuzzing (every route of the host app)', () => {
  let dataDir: string;
  let llm: FakeLlm;
  let host: MeshHost;
  let base: string;
  let operatorToken: string;
  let agentToken: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'route-fuzz-'));
    llm = await startFakeLlm({ script: { rules: [{ reply: { text: 'fuzzed' } }] } });
    const port = await findFreePort('127.0.0.1');
    const config = meshConfigSchema.parse({
      mesh: { name: 'fuzz', port, egress_port: await findFreePort('127.0.0.1'), data_dir: dataDir },
      runtime: { kind: 'process' },
      llm: {
        default_model: 'local/scripted',
        providers: { local: { kind: 'openai-compatible', base_url: llm.url } },
      },
      agents: {
        alpha: {
          permissions: {
            blackboard: { read: ['*'], write: ['*'] },
            pubsub: { publish: ['*'], subscribe: ['*'] },
            message: ['beta'],
          },
        },
        beta: {},
      },
    });
    const loaded: LoadedMeshConfig = {
      config,
      file: path.join(dataDir, 'mesh.yaml'),
      dataDir,
      resolvePath: (relative) => path.resolve(dataDir, relative),
    };
    const runtime = new FakeAgentRuntime();
    host = createMeshHost({
      loaded,
      runtime: 'process',
      logger: createLogger({ level: 'silent' }),
      env: {},
      agentEntry: '/unused',
      agentRuntime: runtime,
    });
    await host.start();
    base = `http://127.0.0.1:${port}`;
    operatorToken = readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim();
    const alpha = runtime.started.find((spec) => spec.agent === 'alpha');
    agentToken = alpha?.env.MESH_TOKEN ?? '';
  });
  afterAll(async () => {
    await host?.stop();
    await llm?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('enumerates the routes from the app itself', () => {
    const routes = host.routes().map((route) => `${route.method} ${route.url}`);
    expect(routes).toContain('GET /healthz');
    expect(routes).toContain('PUT /mesh/blackboard/entries/*');
    expect(routes).toContain('POST /v1/chat/completions');
    expect(routes).toContain('POST /mesh/memory/:scope/search');
    expect(routes.length).toBeGreaterThan(40);
  });

  it('answers every fuzzed request to every route with a clear error or success, never a 500', async () => {
    const failures: string[] = [];
    for (const route of host.routes()) {
      const name = `${route.method} ${route.url}`;
      if (SKIPPED.has(name) || UNSENDABLE.has(route.method)) continue;
      await fc
        .assert(
          fc.asyncProperty(request, async (input) => {
            const outcome = await send(route, input);
            if (outcome !== undefined) failures.push(`${name}: ${outcome}`);
            return outcome === undefined;
          }),
          { numRuns: RUNS, endOnFailure: true, ...(SEED === undefined ? {} : { seed: SEED }) },
        )
        .catch(() => {});
      const started = performance.now();
      const health = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(HEALTH_MS * 5) });
      expect(health.status, `health after ${name}`).toBe(200);
      expect(performance.now() - started, `health latency after ${name}`).toBeLessThan(HEALTH_MS);
    }
    expect(failures).toEqual([]);
  });

  /** One fuzzed request; a description of what went wrong, or undefined when the answer is fine. */
  async function send(route: HostRoute, input: FuzzRequest): Promise<string | undefined> {
    let index = 0;
    const url = route.url
      .replace(/:[A-Za-z_]+/g, () => input.params[index++ % input.params.length] ?? 'x')
      .replace('*', () => input.params.join('/'));
    const query = new URLSearchParams(input.query).toString();
    const headers: Record<string, string> = {};
    const token = tokenFor(route, input.caller);
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (input.traceId) headers['x-trace-id'] = input.traceId;
    const hasBody = input.body !== undefined && route.method !== 'GET' && route.method !== 'HEAD';
    if (hasBody && input.body) headers['content-type'] = input.body.type;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), WAIT_MS);
    try {
      const response = await fetch(`${base}${url}${query ? `?${query}` : ''}`, {
        method: route.method,
        headers,
        ...(hasBody && input.body ? { body: input.body.text } : {}),
        signal: controller.signal,
      });
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
        await response.body?.cancel();
        return response.status === 200 ? undefined : `an event stream with status ${response.status}`;
      }
      const text = await response.text();
      return judge(response.status, text);
    } catch (error) {
      // A route that waits (an ask, a chat with a slow agent) is let go; the health check follows.
      if (controller.signal.aborted) return undefined;
      return `no answer: ${(error as Error).message}`;
    } finally {
      clearTimeout(timer);
    }
  }

  function tokenFor(route: HostRoute, caller: FuzzRequest['caller']): string | undefined {
    const rightful = route.auth === 'operator' ? operatorToken : agentToken;
    const other = route.auth === 'operator' ? agentToken : operatorToken;
    return { rightful, other, garbage: 'not-a-token', none: undefined }[caller];
  }
});

/** A success, or an error body with a stable code; never a 500 or INTERNAL. */
function judge(status: number, text: string): string | undefined {
  if (status === 500) return `500: ${text.slice(0, 300)}`;
  if (status < 400) return undefined;
  // Node's HTTP parser refuses a URL or headers past its limits before any route runs.
  if ((status === 414 || status === 431) && text === '') return undefined;
  let code: unknown;
  try {
    code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
  } catch {
    return `${status} without a JSON error body: ${text.slice(0, 200)}`;
  }
  if (typeof code !== 'string' || !(code in ERROR_CODES))
    return `${status} with an unknown code ${String(code)}`;
  if (code === 'INTERNAL') return `${status} INTERNAL: ${text.slice(0, 300)}`;
  return undefined;
}
