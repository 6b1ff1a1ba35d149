import {
  type AgentTool,
  agentSelfSchema,
  heartbeatResponseSchema,
  steerResponseSchema,
  textResult,
} from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type LoopHarness, startLoopHarness, textOf } from '../../test/loop-harness.js';
import { parseSseEvents } from '../../test/sse-events.js';
import { createAgentServer } from '../agent-server.js';

const TOKEN = 'turn-routes-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };

/** A tool that holds its run until released, telling when it has started. */
function pausingTool() {
  let markStarted: () => void = () => {};
  let release: () => void = () => {};
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const tool: AgentTool<Record<string, never>> = {
    name: 'work',
    group: 'runtime',
    description: 'does a slow step',
    input: z.object({}),
    run: async () => {
      markStarted();
      await released;
      return textResult('step done');
    },
  };
  return { tool, started, release };
}

describe('turn routes (server over the real loop and the scripted LLM)', () => {
  let harness: LoopHarness;
  let app: FastifyInstance;
  afterEach(async () => {
    await app.close();
    await harness.close();
  });

  const serve = (h: LoopHarness) =>
    createAgentServer({
      env: { AGENT_ID: 'a', MESH_TOKEN: TOKEN },
      store: h.store,
      logger: pino({ level: 'silent' }),
      version: '1.0.0',
      ready: () => ({
        self: agentSelfSchema.parse({ agent: 'a', mesh: 'm', role: '', model: 'x', soul: '' }),
        loop: h.loop,
      }),
    });

  it('applies a message steered mid-task after the running tool round', async () => {
    const pausing = pausingTool();
    harness = await startLoopHarness({
      tools: [pausing.tool],
      script: {
        rules: [
          { match: { last_message: 'write French instead' }, reply: { text: 'Bonjour' } },
          { match: { tool_result: 'step done' }, reply: { text: 'Hello' } },
          { reply: { tool_calls: [{ name: 'work', arguments: {} }] } },
        ],
      },
    });
    app = serve(harness);
    const task = app.inject({
      method: 'POST',
      url: '/task',
      headers: AUTH,
      payload: { task: 'greet', conversation_id: 'job' },
    });
    await pausing.started;
    const steer = await app.inject({
      method: 'POST',
      url: '/chat/steer',
      headers: AUTH,
      payload: { message: 'write French instead', conversation_id: 'job' },
    });
    pausing.release();
    const events = await parseSseEvents((await task).body);
    expect([
      steerResponseSchema.parse(steer.json()),
      textOf(harness.sent()[1]?.messages.at(-1)),
      events.at(-1),
    ]).toEqual([
      { steered: true },
      'write French instead',
      { type: 'done', conversation_id: 'job', text: 'Bonjour' },
    ]);
  });

  it('answers a steer with steered:false when no turn runs in the conversation', async () => {
    harness = await startLoopHarness({ script: { default: { text: 'ok' } } });
    app = serve(harness);
    const response = await app.inject({
      method: 'POST',
      url: '/chat/steer',
      headers: AUTH,
      payload: { message: 'hey' },
    });
    expect(steerResponseSchema.parse(response.json())).toEqual({ steered: false });
  });

  it('answers POST /task with the chat SSE events', async () => {
    harness = await startLoopHarness({ script: { default: { text: 'task finished' } } });
    app = serve(harness);
    const response = await app.inject({
      method: 'POST',
      url: '/task',
      headers: AUTH,
      payload: { task: 'do it', conversation_id: 'job' },
    });
    expect((await parseSseEvents(response.body)).at(-1)).toEqual({
      type: 'done',
      conversation_id: 'job',
      text: 'task finished',
    });
  });

  it('answers POST /heartbeat with JSON and makes no LLM call when nothing is actionable', async () => {
    harness = await startLoopHarness({ script: { default: { text: 'ok' } } });
    app = serve(harness);
    const response = await app.inject({ method: 'POST', url: '/heartbeat', headers: AUTH, payload: {} });
    expect([heartbeatResponseSchema.parse(response.json()), harness.sent().length]).toEqual([
      { ran: false, reason: 'nothing actionable', reply: '', silent: true },
      0,
    ]);
  });

  it('runs an actionable heartbeat and counts its events as progress on /status', async () => {
    harness = await startLoopHarness({ script: { default: { text: 'Nothing new.' } } });
    app = serve(harness);
    const response = await app.inject({
      method: 'POST',
      url: '/heartbeat',
      headers: AUTH,
      payload: { pending_events: 3 },
    });
    const status = await app.inject({ method: 'GET', url: '/status' });
    expect([heartbeatResponseSchema.parse(response.json()).reply, status.json().progress > 0]).toEqual([
      'Nothing new.',
      true,
    ]);
  });

  it('refuses a heartbeat without the token', async () => {
    harness = await startLoopHarness({ script: { default: { text: 'ok' } } });
    app = serve(harness);
    const response = await app.inject({ method: 'POST', url: '/heartbeat', payload: {} });
    expect(response.statusCode).toBe(401);
  });
});
