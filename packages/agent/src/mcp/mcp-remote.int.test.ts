import type { McpServerSelf } from '@openlegion/protocol';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RemoteServer, startFakeMcpHost, startRemoteEverything } from '../../test/fake-mcp-host.js';
import { callTool, makeTempDir, toolNamed } from '../../test/tool-harness.js';
import { McpManager } from './mcp-manager.js';
import { createMcpTransport } from './mcp-transport.js';

const AGENT_TOKEN = 'agent-token-for-tests';
const SERVER_TOKEN = 'server-token-only-the-host-knows';

// Remote servers are reached through the host's /mesh/mcp/NAME with the agent's own token; a
// stand-in host here adds the server's token, as the real one does from the vault.
describe('McpManager with remote servers through the host', () => {
  const temp = makeTempDir('ol-mcp-remote-');
  let streamable: RemoteServer;
  let sse: RemoteServer;
  let host: Awaited<ReturnType<typeof startFakeMcpHost>>;
  let manager: McpManager;
  const servers: McpServerSelf[] = [
    { name: 'remote', transport: 'streamable-http', timeout_ms: 10_000 },
    { name: 'legacy', transport: 'sse', timeout_ms: 10_000 },
  ];
  const managerWith = (token: string) =>
    new McpManager({
      servers,
      transport: (server) =>
        createMcpTransport(server, { mesh: { meshUrl: host.url, token }, workspace: temp.dir }),
      logger: pino({ level: 'silent' }),
      initTimeoutMs: 5_000,
      restartDelaysMs: [60_000],
    });

  beforeAll(async () => {
    [streamable, sse] = await Promise.all([
      startRemoteEverything(SERVER_TOKEN, 'streamableHttp'),
      startRemoteEverything(SERVER_TOKEN, 'sse'),
    ]);
    host = await startFakeMcpHost({
      agentToken: AGENT_TOKEN,
      serverToken: SERVER_TOKEN,
      servers: {
        remote: { port: streamable.port, transport: 'streamable-http' },
        legacy: { port: sse.port, transport: 'sse' },
      },
    });
    manager = managerWith(AGENT_TOKEN);
    await manager.start();
  });
  afterAll(async () => {
    await manager?.close();
    await host?.close();
    streamable?.close();
    sse?.close();
    temp.remove();
  });

  it('connects over Streamable HTTP and legacy SSE at the host routes', () => {
    expect(manager.servers().map((server) => [server.name, server.transport, server.state])).toEqual([
      ['remote', 'streamable-http', 'ready'],
      ['legacy', 'sse', 'ready'],
    ]);
    expect(host.requests.some((line) => line.startsWith('POST /mesh/mcp/remote'))).toBe(true);
    expect(host.requests).toContain('GET /mesh/mcp/legacy/sse');
  });

  it('calls a tool over each', async () => {
    const tools = [...manager.tools()];
    expect(
      await callTool(toolNamed(tools, 'remote__echo'), { message: 'streamed' }, { workspace: temp.dir }),
    ).toEqual({
      text: 'Echo: streamed',
      isError: false,
    });
    expect(
      await callTool(toolNamed(tools, 'legacy__echo'), { message: 'old school' }, { workspace: temp.dir }),
    ).toEqual({
      text: 'Echo: old school',
      isError: false,
    });
  });

  it('reports a host that refuses the agent (401) as a server that did not start', async () => {
    const refused = managerWith('not-the-token');
    await refused.start();
    try {
      for (const status of refused.servers()) {
        expect(status.state).toBe('failed');
        expect(status.error).toMatch(
          /^did not start: .* \(HTTP 401: refused \(is the server in permissions\.mcp, and its credential in the vault\?\)\)$/,
        );
      }
    } finally {
      await refused.close();
    }
  });
});
