import { formatSseEvent } from '@openlegion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeAgentRuntime } from '../../test/fake-agent-runtime.js';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { TokenRegistry } from '../auth/index.js';
import { fleetFeature } from '../fleet/index.js';
import { createAgentClient, LANES, lanesFeature } from '../lanes/index.js';
import { AGENT_REGISTRY, registryFeature } from '../registry/index.js';
import { messagesFeature } from './messages-feature.js';
import { selfInboxKey } from './self-inbox-routes.js';

/** Stand-in agents behind a fake fetch: each answers `<agent> heard: <message>`; "stall" never ends. */
const seen: Array<{ agent: string; message: string; conversation: string }> = [];
const fakeFetch = (async (url: string | URL | Request, init?: RequestInit) => {
  const agent = new URL(String(url)).hostname.split('.')[0] ?? '';
  const body = JSON.parse(String(init?.body)) as { message: string; conversation_id: string };
  seen.push({ agent, message: body.message, conversation: body.conversation_id });
  const stall = body.message.includes('stall');
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const text = `${agent} heard: ${body.message.split('\n').at(-1)}`;
      controller.enqueue(new TextEncoder().encode(formatSseEvent({ type: 'text_delta', text })));
      if (stall) {
        init?.signal?.addEventListener('abort', () => controller.error(init.signal?.reason), { once: true });
        return;
      }
      controller.enqueue(
        new TextEncoder().encode(
          formatSseEvent({ type: 'done', conversation_id: body.conversation_id, text }),
        ),
      );
      controller.close();
    },
  });
  return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
}) as typeof fetch;

describe('agent messaging', () => {
  let host: FeatureTestHost;
  const post = (agent: string, payload: object, headers: Record<string, string> = {}) =>
    host.app.inject({
      method: 'POST',
      url: '/mesh/messages',
      headers: { ...host.agentAuth(agent), ...headers },
      payload,
    });

  beforeAll(async () => {
    const tokens = new TokenRegistry();
    const fleet = fleetFeature({ runtime: new FakeAgentRuntime(), beforeLaunch: async () => {} });
    const lanes = lanesFeature({ agentClient: createAgentClient({ fetch: fakeFetch }) });
    host = await startFeatureTestHost(
      [registryFeature(), lanes, messagesFeature(), fleet],
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

  it('asks another agent through its lane and returns the answer, with the sender named and the trace kept', async () => {
    const asked = await post(
      'researcher',
      { to: 'writer', message: 'draft a title', mode: 'ask' },
      { 'x-trace-id': 'trace-42' },
    );
    expect(asked.statusCode).toBe(200);
    expect(asked.json()).toMatchObject({
      to: 'writer',
      reply: 'writer heard: draft a title',
      trace_id: 'trace-42',
    });
    expect(seen.at(-1)).toEqual({
      agent: 'writer',
      message: 'Message from agent "researcher":\n\ndraft a title',
      conversation: 'agent:researcher',
    });
  });

  it('sends without waiting (202 with the lane item)', async () => {
    const sent = await post('researcher', { to: 'writer', message: 'fyi: sources are in' });
    expect(sent.statusCode).toBe(202);
    expect(sent.json()).toMatchObject({ to: 'writer', item_id: expect.any(Number) });
  });

  it('refuses a target outside permissions.message with 403 naming it, and an unknown target', async () => {
    const refused = await post('writer', { to: 'researcher', message: 'hi' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toContain('agents.writer.permissions.message in mesh.yaml is []');
    const bad = await post('researcher', { to: 'writer', message: '' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/message/);
  });

  it('gives up an ask after timeout_s with 504 MESH_ASK_TIMEOUT, the work going on', async () => {
    const pending = post('researcher', { to: 'writer', message: 'stall please', mode: 'ask', timeout_s: 5 });
    let answered = false;
    void pending.then(() => {
      answered = true;
    });
    // Move the fake clock a second at a time until the route has given up.
    for (let waited = 0; !answered && waited < 60; waited += 1) {
      await host.clock.advance(1_000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const late = await pending;
    expect(late.statusCode).toBe(504);
    expect(late.json().error).toMatchObject({ code: 'MESH_ASK_TIMEOUT', retryable: true });
  });
  // The researcher's lane: the writer's is held by the stalled ask above.
  it("puts a self-inbox message into the caller's own lane once per key, whatever the retries", async () => {
    const inbox = (payload: object) =>
      host.app.inject({
        method: 'POST',
        url: '/mesh/self/inbox',
        headers: { ...host.agentAuth('researcher'), 'x-trace-id': 'trace-sub' },
        payload,
      });
    const payload = { key: 'sub-1a2b3c4d', message: 'subagent answer: 42', conversation_id: 'telegram:7' };
    const first = await inbox(payload);
    expect(first.statusCode).toBe(202);
    expect(first.json()).toMatchObject({ outcome: 'queued', trace_id: 'trace-sub' });
    const again = await inbox(payload);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ ...first.json(), outcome: 'existing' });
    const lanes = host.service(LANES);
    const item = lanes.byKey(selfInboxKey('researcher', 'sub-1a2b3c4d'));
    expect(item).toMatchObject({ agent: 'researcher', conversationId: 'telegram:7', source: 'agent' });
    if (item) for await (const _event of lanes.follow(item));
    expect(seen.filter((entry) => entry.message === 'subagent answer: 42')).toEqual([
      { agent: 'researcher', message: 'subagent answer: 42', conversation: 'telegram:7' },
    ]);
    // Another agent's same key is its own.
    const other = await host.app.inject({
      method: 'POST',
      url: '/mesh/self/inbox',
      headers: host.agentAuth('writer'),
      payload,
    });
    expect(other.json()).toMatchObject({ outcome: 'queued' });
    const bad = await inbox({ key: '../x', message: 'hi' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'REQUEST_INVALID' });
    expect(bad.json().error.message).toMatch(/key/);
  });
});
