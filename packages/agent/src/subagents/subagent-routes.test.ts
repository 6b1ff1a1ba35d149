import { agentSelfSchema, subagentsListSchema } from '@openlegion/protocol';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createAgentServer, type ReadyAgent } from '../agent-server.js';
import type { AgentLoop } from '../loop/agent-loop.js';
import type { SubagentLister } from './subagent-routes.js';

const TOKEN = 'mesh-token-for-tests';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const self = agentSelfSchema.parse({ agent: 'a', mesh: 'm', role: 'tester', model: 'scripted/x', soul: '' });
const idleLoop = {} as AgentLoop; // the route never reaches the loop

const lister: SubagentLister = {
  list: () => [
    {
      id: 'sa-1',
      task: 'find sources on tides',
      role: 'researcher',
      depth: 1,
      state: 'done',
      startedAt: Date.parse('2026-11-26T10:00:00Z'),
      endedAt: Date.parse('2026-11-26T10:00:42Z'),
      tokens: 1_234,
      restarts: 0,
      result: 'three sources',
    },
    {
      id: 'sa-2',
      task: 'check the second one',
      role: 'checker',
      depth: 2,
      state: 'running',
      startedAt: Date.parse('2026-11-26T10:00:10Z'),
      tokens: 0,
      restarts: 0,
    },
  ],
};

describe('the agent GET /subagents/ route', () => {
  let ready: ReadyAgent | undefined;
  const app = createAgentServer({
    env: { AGENT_ID: 'a', MESH_TOKEN: TOKEN },
    store: { conversationCount: () => 0 },
    logger: pino({ level: 'silent' }),
    version: '1',
    ready: () => ready,
  });
  afterAll(() => app.close());

  it('answers 503 AGENT_NOT_READY before the agent knows who it is', async () => {
    ready = undefined;
    const response = await app.inject({ url: '/subagents/', headers: AUTH });
    expect([response.statusCode, response.json().error.code]).toEqual([503, 'AGENT_NOT_READY']);
  });

  it('wants the mesh token', async () => {
    ready = { self, loop: idleLoop, subagents: async () => lister };
    expect((await app.inject({ url: '/subagents/' })).statusCode).toBe(401);
  });

  it('lists the subagents with depth, state, tokens, task and times (null while running), without results', async () => {
    ready = { self, loop: idleLoop, subagents: async () => lister };
    const response = await app.inject({ url: '/subagents/', headers: AUTH });
    expect(response.statusCode).toBe(200);
    expect(subagentsListSchema.parse(response.json())).toEqual({
      subagents: [
        {
          id: 'sa-1',
          depth: 1,
          role: 'researcher',
          state: 'done',
          tokens: 1_234,
          task: 'find sources on tides',
          started_at: '2026-11-26T10:00:00.000Z',
          ended_at: '2026-11-26T10:00:42.000Z',
        },
        {
          id: 'sa-2',
          depth: 2,
          role: 'checker',
          state: 'running',
          tokens: 0,
          task: 'check the second one',
          started_at: '2026-11-26T10:00:10.000Z',
          ended_at: null,
        },
      ],
    });
  });
});
