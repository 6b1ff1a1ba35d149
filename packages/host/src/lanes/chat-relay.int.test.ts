import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ChannelMesh,
  type ChatEvent,
  type ErrorBody,
  errorBody,
  formatSseEvent,
} from '@openlegion/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeAgentRuntime } from '../../test/fake-agent-runtime.js';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { APPROVALS, approvalsFeature } from '../approvals/index.js';
import { TokenRegistry } from '../auth/index.js';
import { fleetFeature } from '../fleet/index.js';
import { instructionsFeature } from '../instructions/index.js';
import { createChannelMesh, operatorFeature } from '../operator/index.js';
import { AGENT_REGISTRY, registryFeature } from '../registry/index.js';
import { workflowsFeature } from '../workflows/index.js';
import { LANES, lanesFeature } from './index.js';

interface ReceivedChat {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
  /** Resolves when the host closed the connection to the stand-in. */
  closed: Promise<void>;
}

type StandInBehaviour = (res: ServerResponse) => void | Promise<void>;

/** A stand-in agent: records each `POST /chat` and answers as the current test says. */
async function startStandInAgent(): Promise<{
  url: string;
  received: ReceivedChat[];
  behave: (behaviour: StandInBehaviour) => void;
  close: () => Promise<void>;
}> {
  const received: ReceivedChat[] = [];
  let behaviour: StandInBehaviour = (res) => {
    res.end();
  };
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    const body =
      req.headers['content-type']?.startsWith('application/json') && text ? JSON.parse(text) : text;
    received.push({
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: req.headers.authorization,
      body,
      closed,
    });
    await behaviour(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    behave: (next) => {
      behaviour = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sseHeaders(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
}

describe('chat relay through the host', () => {
  let standIn: Awaited<ReturnType<typeof startStandInAgent>>;
  let host: FeatureTestHost;
  let hostUrl: string;
  let agentToken: string;
  let channelMesh: ChannelMesh;

  beforeAll(async () => {
    standIn = await startStandInAgent();
    const tokens = new TokenRegistry();
    agentToken = tokens.mint('a');
    const fleet = fleetFeature({ runtime: new FakeAgentRuntime(), beforeLaunch: async () => {} });
    host = await startFeatureTestHost(
      [
        registryFeature(),
        lanesFeature(),
        approvalsFeature(),
        workflowsFeature({ approvals: true }),
        instructionsFeature(),
        operatorFeature({
          meshStatus: () => {
            throw new Error('not used');
          },
        }),
        fleet,
      ],
      { llm: { providers: { openai: {} } }, agents: { a: {} } },
      { tokens, start: false },
    );
    channelMesh = createChannelMesh({
      lanes: () => host.service(LANES),
      registry: () => host.service(AGENT_REGISTRY),
      approvals: () => host.service(APPROVALS),
      notices: host.context.notices,
    });
    const registry = host.service(AGENT_REGISTRY);
    registry.register({ name: 'a', runtime: 'process', model: 'openai/gpt-4.1-mini', url: standIn.url });
    registry.markReady('a');
    await host.app.listen({ host: '127.0.0.1', port: 0 });
    hostUrl = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await host.stop();
    await standIn.close();
  });
  afterEach(() => {
    standIn.received.length = 0;
  });

  const chat = (signal?: AbortSignal) =>
    fetch(`${hostUrl}/api/agents/a/chat`, {
      method: 'POST',
      headers: { ...host.operatorAuth, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
      ...(signal ? { signal } : {}),
    });

  it('relays the chat to the agent with the agent token, not the operator token', async () => {
    standIn.behave((res) => {
      sseHeaders(res);
      res.end(formatSseEvent({ type: 'done', conversation_id: 'default', text: '' }));
    });
    await (await chat()).text();
    expect(standIn.received[0]?.authorization).toBe(`Bearer ${agentToken}`);
    expect(standIn.received[0]?.body).toEqual({
      message: 'hello',
      conversation_id: 'default',
      trace_id: expect.any(String),
    });
  });

  it('passes each SSE event to the client before the agent has finished', async () => {
    let finish = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    standIn.behave(async (res) => {
      sseHeaders(res);
      res.write(formatSseEvent({ type: 'text_delta', text: 'Hel' }));
      await finished;
      res.end(formatSseEvent({ type: 'done', conversation_id: 'default', text: 'Hel' }));
    });
    const response = await chat();
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = (response.body ?? new ReadableStream<Uint8Array>()).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(formatSseEvent({ type: 'text_delta', text: 'Hel' }));
    finish();
    let rest = '';
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      rest += new TextDecoder().decode(next.value);
    }
    expect(rest).toBe(formatSseEvent({ type: 'done', conversation_id: 'default', text: 'Hel' }));
  });

  it('closes the connection to the agent when the client disconnects', async () => {
    standIn.behave((res) => {
      sseHeaders(res);
      res.write(formatSseEvent({ type: 'text_delta', text: 'and on' }));
      // Never ends on its own: only the host closing the relay ends this exchange.
    });
    const controller = new AbortController();
    const response = await chat(controller.signal);
    const reader = (response.body ?? new ReadableStream<Uint8Array>()).getReader();
    await reader.read();
    controller.abort();
    await expect(standIn.received[0]?.closed).resolves.toBeUndefined();
  });

  it("passes the agent's own error through with its status", async () => {
    standIn.behave((res) => {
      res.writeHead(409, { 'content-type': 'application/json' });
      res.end(JSON.stringify(errorBody('AGENT_BUSY', 'agent "a" is already answering')));
    });
    const response = await chat();
    expect(response.status).toBe(409);
    expect(((await response.json()) as ErrorBody).error).toMatchObject({
      code: 'AGENT_BUSY',
      retryable: true,
    });
  });

  it('answers a cancel of a lane item that does not exist 404 MESH_LANE_ITEM_UNKNOWN', async () => {
    const response = await fetch(`${hostUrl}/api/lanes/987654321/cancel`, {
      method: 'POST',
      headers: host.operatorAuth,
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as ErrorBody).error).toMatchObject({
      code: 'MESH_LANE_ITEM_UNKNOWN',
      message: 'no lane item 987654321; GET /api/lanes lists them',
    });
  });

  describe("an error raised under the agent's turn", () => {
    const failWith = (code: string, before: ChatEvent[] = []) =>
      standIn.behave((res) => {
        sseHeaders(res);
        for (const event of before) res.write(formatSseEvent(event));
        res.end(
          formatSseEvent({
            type: 'error',
            code,
            message: 'LLM call failed: 402 over budget',
            retryable: false,
          }),
        );
      });

    it.each([
      ['BUDGET_EXCEEDED', 402],
      ['LLM_MODEL_FORBIDDEN', 403],
      ['LLM_CONTEXT_OVERFLOW', 400],
      ['LLM_CALL_LIMIT', 429],
    ])(
      'answers the operator %s with its own status %i when it comes before any event',
      async (code, status) => {
        failWith(code);
        const response = await chat();
        expect(response.status).toBe(status);
        expect(((await response.json()) as ErrorBody).error).toMatchObject({
          code,
          message: 'LLM call failed: 402 over budget',
        });
      },
    );

    it('ends a reply already streaming with an error event of its own code', async () => {
      failWith('BUDGET_EXCEEDED', [{ type: 'text_delta', text: 'Let me look' }]);
      const response = await chat();
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(
        formatSseEvent({ type: 'text_delta', text: 'Let me look' }) +
          formatSseEvent({
            type: 'error',
            code: 'BUDGET_EXCEEDED',
            message: 'LLM call failed: 402 over budget',
            retryable: false,
          }),
      );
    });

    it.each(['MADE_UP', 'AUTH_INVALID'])(
      'reports %s from an agent as 502 AGENT_LLM_FAILED (not a catalogue code, or not one a turn may raise)',
      async (code) => {
        failWith(code);
        const response = await chat();
        expect(response.status).toBe(502);
        expect(((await response.json()) as ErrorBody).error.code).toBe('AGENT_LLM_FAILED');
      },
    );

    it('reaches a channel (Telegram) as an error event of its own code', async () => {
      failWith('BUDGET_EXCEEDED', [{ type: 'notice', message: 'thinking' }]);
      const events = [];
      for await (const event of channelMesh.chat('a', { message: 'hello' })) events.push(event);
      expect(events.at(-1)).toMatchObject({ type: 'error', code: 'BUDGET_EXCEEDED', retryable: false });
    });
  });

  describe('the channel mesh', () => {
    it("streams the agent's answer as typed events, relayed with the agent token", async () => {
      standIn.behave((res) => {
        sseHeaders(res);
        res.write(formatSseEvent({ type: 'text_delta', text: 'Hi ' }));
        res.end(formatSseEvent({ type: 'done', conversation_id: 'tg-1', text: 'Hi there' }));
      });
      const events = [];
      for await (const event of channelMesh.chat('a', { message: 'hello', conversation_id: 'tg-1' }))
        events.push(event);
      expect(events).toEqual([
        { type: 'text_delta', text: 'Hi ' },
        { type: 'done', conversation_id: 'tg-1', text: 'Hi there' },
      ]);
      expect(standIn.received[0]?.authorization).toBe(`Bearer ${agentToken}`);
      expect(channelMesh.agents().map((agent) => [agent.name, agent.state])).toEqual([['a', 'ready']]);
    });

    it('refuses an unknown agent before any event, listing the agents', async () => {
      const chat = channelMesh.chat('zz', { message: 'hello' })[Symbol.asyncIterator]();
      await expect(chat.next()).rejects.toMatchObject({
        code: 'AGENT_UNKNOWN',
        message: 'no agent "zz" (agents: a)',
      });
    });

    it('refuses an empty message naming the field', async () => {
      const chat = channelMesh.chat('a', { message: '' })[Symbol.asyncIterator]();
      await expect(chat.next()).rejects.toMatchObject({
        code: 'REQUEST_INVALID',
        message: expect.stringContaining('body.message'),
      });
    });
  });

  describe('operator calls forwarded to the agent', () => {
    it('passes memory calls through with the agent token, query and body included', async () => {
      standIn.behave((res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"results":[]}');
      });
      const response = await fetch(`${hostUrl}/api/agents/a/memory/search?mode=flat`, {
        method: 'POST',
        headers: { ...host.operatorAuth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'coffee' }),
      });
      expect([response.status, await response.json()]).toEqual([200, { results: [] }]);
      expect(standIn.received[0]).toMatchObject({
        method: 'POST',
        path: '/memory/search?mode=flat',
        authorization: `Bearer ${agentToken}`,
        body: { query: 'coffee' },
      });
    });

    it('passes JSON lines imports through unchanged and the agent status back', async () => {
      standIn.behave((res) => {
        res.writeHead(422, { 'content-type': 'application/json' });
        res.end(JSON.stringify(errorBody('REQUEST_INVALID', 'line 2: not JSON')));
      });
      const lines = '{"content":"a"}\nnot json\n';
      const response = await fetch(`${hostUrl}/api/agents/a/memory/import`, {
        method: 'POST',
        headers: { ...host.operatorAuth, 'content-type': 'application/x-ndjson' },
        body: lines,
      });
      expect(response.status).toBe(422);
      expect(standIn.received[0]?.body).toBe(lines);
    });

    it("forwards the operator's subagents listing to the agent's GET /subagents/", async () => {
      standIn.behave((res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"subagents":[]}');
      });
      const response = await fetch(`${hostUrl}/api/agents/a/subagents/`, { headers: host.operatorAuth });
      expect([response.status, await response.json()]).toEqual([200, { subagents: [] }]);
      expect(standIn.received[0]).toMatchObject({
        method: 'GET',
        path: '/subagents/',
        authorization: `Bearer ${agentToken}`,
      });
    });

    it('refuses an agent token on the forwarded routes', async () => {
      const response = await fetch(`${hostUrl}/api/agents/a/memory/stats`, {
        headers: { authorization: `Bearer ${agentToken}` },
      });
      expect(response.status).toBe(403);
      expect(standIn.received).toEqual([]);
    });
  });
});
