import { type AgentSelf, agentSelfSchema, agentStatusSchema, errorBodySchema } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSseEvents } from '../test/sse-events.js';
import { createAgentServer, type ReadyAgent } from './agent-server.js';
import type { AgentLoop } from './loop/agent-loop.js';

const TOKEN = 'mesh-token-for-tests';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const self: AgentSelf = agentSelfSchema.parse({
  agent: 'a',
  mesh: 'm',
  role: 'tester',
  model: 'scripted/gpt-test',
  soul: '',
});

/** A chat loop answering "ok", or holding each turn until released. */
function scriptedChat(options: { hold?: Promise<void> } = {}) {
  let markStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const chat: AgentLoop = {
    async runChat(turn, emit) {
      markStarted();
      await options.hold;
      emit({ type: 'text_delta', text: 'ok' });
      emit({ type: 'done', conversation_id: turn.conversationId, text: 'ok' });
    },
    runTask: (task, emit, signal) => chat.runChat(task, emit, signal),
    runHeartbeat: async () => ({ ran: false, reason: 'nothing actionable', reply: '', silent: true }),
  };
  return { chat, started };
}

function serverWith(ready: ReadyAgent | undefined): FastifyInstance {
  return createAgentServer({
    env: { AGENT_ID: 'a', MESH_TOKEN: TOKEN },
    store: { conversationCount: () => 3 },
    logger: pino({ level: 'silent' }),
    version: '9.9.9',
    ready: () => ready,
  });
}

function errorCode(body: string): string {
  return errorBodySchema.parse(JSON.parse(body)).error.code;
}

describe('createAgentServer', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('answers /status without a token', async () => {
    app = serverWith({ self, loop: scriptedChat().chat });
    const response = await app.inject({ method: 'GET', url: '/status' });
    expect(agentStatusSchema.parse(response.json())).toMatchObject({
      agent: 'a',
      state: 'ready',
      version: '9.9.9',
      model: 'scripted/gpt-test',
      conversations: 3,
    });
  });

  it('reports starting on /status until the host has said who the agent is', async () => {
    app = serverWith(undefined);
    const response = await app.inject({ method: 'GET', url: '/status' });
    expect(response.json()).toMatchObject({ state: 'starting' });
  });

  it('rejects a chat without a token as AUTH_MISSING', async () => {
    app = serverWith({ self, loop: scriptedChat().chat });
    const response = await app.inject({ method: 'POST', url: '/chat', payload: { message: 'hi' } });
    expect([response.statusCode, errorCode(response.body)]).toEqual([401, 'AUTH_MISSING']);
  });

  it('rejects a chat with a wrong token as AUTH_INVALID', async () => {
    app = serverWith({ self, loop: scriptedChat().chat });
    const response = await app.inject({
      method: 'POST',
      url: '/chat',
      headers: { authorization: 'Bearer not-the-token' },
      payload: { message: 'hi' },
    });
    expect([response.statusCode, errorCode(response.body)]).toEqual([401, 'AUTH_INVALID']);
  });

  it('rejects a non-bearer authorization as AUTH_MISSING', async () => {
    app = serverWith({ self, loop: scriptedChat().chat });
    const response = await app.inject({
      method: 'POST',
      url: '/chat',
      headers: { authorization: `Basic ${TOKEN}` },
      payload: { message: 'hi' },
    });
    expect(errorCode(response.body)).toBe('AUTH_MISSING');
  });

  it('rejects an empty message with REQUEST_INVALID naming the field', async () => {
    app = serverWith({ self, loop: scriptedChat().chat });
    const response = await app.inject({
      method: 'POST',
      url: '/chat',
      headers: AUTH,
      payload: { message: '' },
    });
    expect(response.statusCode).toBe(400);
    expect(errorBodySchema.parse(response.json()).error).toMatchObject({
      code: 'REQUEST_INVALID',
      message: expect.stringContaining('message'),
    });
  });

  it('rejects a body that is not JSON with REQUEST_INVALID', async () => {
    app = serverWith({ self, loop: scriptedChat().chat });
    const response = await app.inject({
      method: 'POST',
      url: '/chat',
      headers: { ...AUTH, 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect([response.statusCode, errorCode(response.body)]).toEqual([400, 'REQUEST_INVALID']);
  });

  it('answers an unknown route with NOT_FOUND', async () => {
    app = serverWith({ self, loop: scriptedChat().chat });
    const response = await app.inject({ method: 'GET', url: '/nope', headers: AUTH });
    expect([response.statusCode, errorCode(response.body)]).toEqual([404, 'NOT_FOUND']);
  });

  it('answers a chat before the agent is ready with AGENT_NOT_READY', async () => {
    app = serverWith(undefined);
    const response = await app.inject({
      method: 'POST',
      url: '/chat',
      headers: AUTH,
      payload: { message: 'hi' },
    });
    expect([response.statusCode, errorCode(response.body)]).toEqual([503, 'AGENT_NOT_READY']);
  });

  it('streams the chat loop events as SSE', async () => {
    app = serverWith({ self, loop: scriptedChat().chat });
    const response = await app.inject({
      method: 'POST',
      url: '/chat',
      headers: AUTH,
      payload: { message: 'hi' },
    });
    expect(response.headers['content-type']).toContain('text/event-stream');
    expect(await parseSseEvents(response.body)).toEqual([
      { type: 'text_delta', text: 'ok' },
      { type: 'done', conversation_id: 'default', text: 'ok' },
    ]);
  });

  it('counts progress on /status with every event a turn streams', async () => {
    app = serverWith({ self, loop: scriptedChat().chat });
    const before = agentStatusSchema.parse((await app.inject({ method: 'GET', url: '/status' })).json());
    await app.inject({ method: 'POST', url: '/chat', headers: AUTH, payload: { message: 'hi' } });
    const after = agentStatusSchema.parse((await app.inject({ method: 'GET', url: '/status' })).json());
    expect([before.progress, after.progress]).toEqual([0, 2]);
  });

  it('refuses a second chat on a busy conversation with AGENT_BUSY', async () => {
    let release: () => void = () => {};
    const { chat, started } = scriptedChat({ hold: new Promise((resolve) => (release = resolve)) });
    app = serverWith({ self, loop: chat });
    const first = app.inject({ method: 'POST', url: '/chat', headers: AUTH, payload: { message: 'one' } });
    await started;
    const second = await app.inject({
      method: 'POST',
      url: '/chat',
      headers: AUTH,
      payload: { message: 'two' },
    });
    release();
    await first;
    expect([second.statusCode, errorCode(second.body)]).toEqual([409, 'AGENT_BUSY']);
  });

  it('reports busy on /status while a chat runs', async () => {
    let release: () => void = () => {};
    const { chat, started } = scriptedChat({ hold: new Promise((resolve) => (release = resolve)) });
    app = serverWith({ self, loop: chat });
    const first = app.inject({ method: 'POST', url: '/chat', headers: AUTH, payload: { message: 'one' } });
    await started;
    const status = await app.inject({ method: 'GET', url: '/status' });
    release();
    await first;
    expect(status.json()).toMatchObject({ state: 'busy' });
  });

  it('turns a chat loop crash into an INTERNAL error event', async () => {
    const chat: AgentLoop = {
      runChat: async () => {
        throw new Error('boom');
      },
      runTask: async () => {},
      runHeartbeat: async () => ({ ran: false, reason: '', reply: '', silent: true }),
    };
    app = serverWith({ self, loop: chat });
    const response = await app.inject({
      method: 'POST',
      url: '/chat',
      headers: AUTH,
      payload: { message: 'hi' },
    });
    expect(await parseSseEvents(response.body)).toEqual([
      { type: 'error', code: 'INTERNAL', message: 'unexpected fault; see the agent log', retryable: false },
    ]);
  });
});
