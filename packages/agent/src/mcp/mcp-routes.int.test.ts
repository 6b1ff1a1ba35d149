import {
  agentSelfSchema,
  errorBodySchema,
  mcpCallAnswerSchema,
  mcpServersAnswerSchema,
  mcpToolsAnswerSchema,
} from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ODD_SERVER, serverEntry, stdio, testManager } from '../../test/mcp-servers.js';
import { makeTempDir } from '../../test/tool-harness.js';
import { createAgentServer, type ReadyAgent } from '../agent-server.js';
import type { AgentLoop } from '../loop/agent-loop.js';
import type { McpManager } from './mcp-manager.js';

const TOKEN = 'mesh-token-for-tests';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const self = agentSelfSchema.parse({ agent: 'a', mesh: 'm', role: 'tester', model: 'scripted/x', soul: '' });
const idleLoop = {} as AgentLoop; // the MCP routes never reach the loop

describe('the agent /mcp routes', () => {
  const temp = makeTempDir('ol-mcp-routes-');
  let manager: McpManager;
  let ready: ReadyAgent | undefined;
  let app: FastifyInstance;

  beforeAll(async () => {
    manager = testManager(
      [stdio('everything', [serverEntry('server-everything'), 'stdio']), stdio('odd', [ODD_SERVER, 'exit'])],
      temp.dir,
      { restartDelaysMs: [60_000] },
    );
    await manager.start();
    app = createAgentServer({
      env: { AGENT_ID: 'a', MESH_TOKEN: TOKEN },
      store: { conversationCount: () => 0 },
      logger: pino({ level: 'silent' }),
      version: '1',
      ready: () => ready,
    });
  });
  afterAll(async () => {
    await app.close();
    await manager.close();
    temp.remove();
  });

  it('answers 503 AGENT_NOT_READY before the agent knows who it is', async () => {
    ready = undefined;
    const response = await app.inject({ method: 'GET', url: '/mcp/servers', headers: AUTH });
    expect(response.statusCode).toBe(503);
    expect(errorBodySchema.parse(response.json()).error).toMatchObject({
      code: 'AGENT_NOT_READY',
      message: 'the agent is still starting; try again in a moment',
    });
  });

  it('lists servers with their state, and tools', async () => {
    ready = { self, loop: idleLoop, mcp: async () => manager };
    const servers = mcpServersAnswerSchema.parse(
      (await app.inject({ url: '/mcp/servers', headers: AUTH })).json(),
    );
    expect(servers.servers.map((server) => [server.name, server.state, server.resources])).toEqual([
      ['everything', 'ready', true],
      ['odd', 'failed', false],
    ]);
    const tools = mcpToolsAnswerSchema.parse(
      (await app.inject({ url: '/mcp/tools?server=everything', headers: AUTH })).json(),
    );
    expect(tools.tools.find((tool) => tool.server_tool === 'echo')?.name).toBe('everything__echo');
  });

  it('calls a tool as the operator', async () => {
    ready = { self, loop: idleLoop, mcp: async () => manager };
    const response = await app.inject({
      method: 'POST',
      url: '/mcp/call',
      headers: AUTH,
      payload: { server: 'everything', tool: 'echo', arguments: { message: 'from the operator' } },
    });
    expect(mcpCallAnswerSchema.parse(response.json())).toEqual({
      text: 'Echo: from the operator',
      is_error: false,
      images: 0,
    });
  });

  it('answers an unknown server 404 and a server that did not start 503, with the reason', async () => {
    ready = { self, loop: idleLoop, mcp: async () => manager };
    const unknown = await app.inject({
      method: 'POST',
      url: '/mcp/call',
      headers: AUTH,
      payload: { server: 'nope', tool: 'x' },
    });
    expect([unknown.statusCode, errorBodySchema.parse(unknown.json()).error.code]).toEqual([
      404,
      'AGENT_MCP_SERVER_UNKNOWN',
    ]);
    const down = await app.inject({
      method: 'POST',
      url: '/mcp/call',
      headers: AUTH,
      payload: { server: 'odd', tool: 'add' },
    });
    expect(down.statusCode).toBe(503);
    expect(errorBodySchema.parse(down.json()).error).toMatchObject({
      code: 'AGENT_MCP_SERVER_UNAVAILABLE',
      message: expect.stringContaining('MCP server odd is not available (failed): did not start:'),
    });
    const bad = await app.inject({
      method: 'POST',
      url: '/mcp/call',
      headers: AUTH,
      payload: { server: 'odd' },
    });
    expect([bad.statusCode, errorBodySchema.parse(bad.json()).error.code]).toEqual([400, 'REQUEST_INVALID']);
  });
});
