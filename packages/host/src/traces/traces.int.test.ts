import { formatSseEvent, TRACE_HEADER } from '@openlegion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeAgentRuntime } from '../../test/fake-agent-runtime.js';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { TokenRegistry } from '../auth/index.js';
import { fleetFeature } from '../fleet/index.js';
import { createAgentClient, lanesFeature } from '../lanes/index.js';
import { messagesFeature } from '../messages/index.js';
import { AGENT_REGISTRY, registryFeature } from '../registry/index.js';
import { tracesFeature } from './traces-feature.js';

/** Stand-in agents behind a fake fetch: each answers "ok", and records the trace id it was given. */
const traceIdsSeen: string[] = [];
const fakeFetch = (async (_url: string | URL | Request, init?: RequestInit) => {
  const body = JSON.parse(String(init?.body)) as {
    conversation_id: string;
    trace_id: string;
    message: string;
  };
  traceIdsSeen.push(body.trace_id);
  // A message about tea recalls a memory first, as the real agent reports it.
  const recalled = body.message.includes('tea')
    ? formatSseEvent({
        type: 'recall',
        memories: [
          {
            id: 7,
            category: 'preferences',
            scope: 'agent:writer',
            source: 'tool',
            saved_at: '2026-11-20T10:00:00.000Z',
            chars: 30,
            clipped: false,
            untrusted: false,
          },
        ],
        chars: 220,
        tokens: 55,
        ms: 1.5,
        budget_chars: 2_000,
        held: 0,
      })
    : '';
  const frames =
    recalled +
    formatSseEvent({ type: 'text_delta', text: 'ok' }) +
    formatSseEvent({ type: 'done', conversation_id: body.conversation_id, text: 'ok' });
  return new Response(frames, { headers: { 'content-type': 'text/event-stream' } });
}) as typeof fetch;

describe('traces', () => {
  let host: FeatureTestHost;

  beforeAll(async () => {
    const tokens = new TokenRegistry();
    const traces = tracesFeature();
    const fleet = fleetFeature({ runtime: new FakeAgentRuntime(), beforeLaunch: async () => {} });
    const lanes = lanesFeature({ agentClient: createAgentClient({ fetch: fakeFetch }) });
    host = await startFeatureTestHost(
      [registryFeature(), traces, lanes, messagesFeature(), fleet],
      {
        llm: { providers: { openai: {} } },
        agents: { researcher: { permissions: { message: ['writer'] } }, writer: {} },
      },
      { tokens, start: false },
    );
    const registry = host.service(AGENT_REGISTRY);
    for (const name of ['researcher', 'writer']) {
      registry.register({
        name,
        runtime: 'process',
        model: 'openai/gpt-4.1-mini',
        url: `http://${name}.test`,
      });
      registry.markReady(name);
      tokens.mint(name);
    }
  });
  afterAll(() => host.stop());

  it('shows one trace id at every hop: the call that entered, the lane moves, the agent it reached', async () => {
    const asked = await host.app.inject({
      method: 'POST',
      url: '/mesh/messages',
      headers: { ...host.agentAuth('researcher'), 'x-trace-id': 'trace-abc' },
      payload: { to: 'writer', message: 'title?', mode: 'ask' },
    });
    expect(asked.statusCode).toBe(200);
    expect(traceIdsSeen).toEqual(['trace-abc']);
    const trace = await host.app.inject({ url: '/api/traces/trace-abc', headers: host.operatorAuth });
    expect(
      trace.json().events.map((event: { hop: string; agent: string }) => [event.hop, event.agent]),
    ).toEqual([
      ['lane.queued', 'writer'],
      ['lane.running', 'writer'],
      ['lane.done', 'writer'],
      ['http POST /mesh/messages', 'researcher'],
    ]);
    const recent = await host.app.inject({ url: '/api/traces', headers: host.operatorAuth });
    expect(recent.json().traces[0]).toMatchObject({ trace_id: 'trace-abc', hops: 4, entry: 'lane.queued' });
    const missing = await host.app.inject({ url: '/api/traces/nope', headers: host.operatorAuth });
    expect(missing.statusCode).toBe(404);
  });

  it('takes the trace of an operator chat from the one trace header', async () => {
    const chat = await host.app.inject({
      method: 'POST',
      url: '/api/agents/writer/chat',
      headers: { ...host.operatorAuth, [TRACE_HEADER]: 'trace-cli-1' },
      payload: { message: 'hello' },
    });
    expect(chat.statusCode).toBe(200);
    expect(traceIdsSeen.at(-1)).toBe('trace-cli-1');
  });

  it('records what the agent recalled into the turn as a hop of its trace', async () => {
    const chat = await host.app.inject({
      method: 'POST',
      url: '/api/agents/writer/chat',
      headers: { ...host.operatorAuth, [TRACE_HEADER]: 'trace-recall' },
      payload: { message: 'which tea do I like?' },
    });
    expect(chat.statusCode).toBe(200);
    const trace = await host.app.inject({ url: '/api/traces/trace-recall', headers: host.operatorAuth });
    expect(trace.json().events).toContainEqual(
      expect.objectContaining({
        hop: 'agent.recall',
        agent: 'writer',
        detail: { memories: [7], chars: 220, tokens: 55, ms: 1.5, held: 0 },
      }),
    );
  });

  it('still takes it from x-openlegion-trace, the header older CLIs sent', async () => {
    const chat = await host.app.inject({
      method: 'POST',
      url: '/api/agents/writer/chat',
      headers: { ...host.operatorAuth, 'x-openlegion-trace': 'trace-old-cli' },
      payload: { message: 'hello' },
    });
    expect(chat.statusCode).toBe(200);
    expect(traceIdsSeen.at(-1)).toBe('trace-old-cli');
  });
  it("nests a subagent's calls under its trace: its path and depth from x-subagent, a bad one dropped", async () => {
    const send = (subagent: string) =>
      host.app.inject({
        method: 'POST',
        url: '/mesh/messages',
        headers: { ...host.agentAuth('researcher'), 'x-trace-id': 'trace-tree', 'x-subagent': subagent },
        payload: { to: 'writer', message: 'from a child' },
      });
    expect((await send('sub-1a2b3c4d/sub-5e6f7a8b')).statusCode).toBe(202);
    expect((await send('sub-1a2b3c4d; drop table')).statusCode).toBe(202);
    const trace = await host.app.inject({ url: '/api/traces/trace-tree', headers: host.operatorAuth });
    const calls = trace
      .json()
      .events.filter((event: { hop: string }) => event.hop === 'http POST /mesh/messages')
      .map((event: { detail: Record<string, unknown> }) => [event.detail.subagent, event.detail.depth]);
    expect(calls).toEqual([
      ['sub-1a2b3c4d/sub-5e6f7a8b', 2],
      [undefined, undefined],
    ]);
  });
});
