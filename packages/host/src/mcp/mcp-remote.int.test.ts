import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { MeshConfigInput } from '@openlegion/protocol';
import { type BearerFront, type FakeOAuth, startBearerFront, startFakeOAuth } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { type EverythingServer, startEverything } from '../../test/mcp-everything.js';
import { environmentSecrets } from '../secrets/index.js';
import { TRACE_LOG, tracesFeature } from '../traces/index.js';
import { mcpFeature } from './index.js';

const BEARER = 'bearer-token-only-the-vault-holds-0123456789';
const CLIENT_SECRET = 'oauth-client-secret-only-the-vault-holds';

/** The real reference server, over both transports, each behind a front that checks its token. */
describe('remote MCP servers through the host (server-everything from npm)', () => {
  let streamable: EverythingServer;
  let legacy: EverythingServer;
  let bearerFront: BearerFront;
  let oauthFront: BearerFront;
  let oauth: FakeOAuth;
  let host: FeatureTestHost;
  let meshUrl: string;

  beforeAll(async () => {
    [streamable, legacy, oauth] = await Promise.all([
      startEverything('streamableHttp'),
      startEverything('sse'),
      startFakeOAuth({ clientId: 'openlegion', clientSecret: CLIENT_SECRET }),
    ]);
    bearerFront = await startBearerFront({ target: streamable.origin, accepts: (token) => token === BEARER });
    oauthFront = await startBearerFront({ target: legacy.origin, accepts: (token) => oauth.valid(token) });
    const config: MeshConfigInput = {
      mcp: {
        servers: {
          everything: { url: `${bearerFront.url}/mcp`, auth: { bearer: 'vault:EVERYTHING_TOKEN' } },
          legacy: {
            url: `${oauthFront.url}/sse`,
            transport: 'sse',
            auth: {
              oauth: {
                token_url: oauth.tokenUrl,
                client_id: 'openlegion',
                client_secret: 'vault:LEGACY_SECRET',
                scope: 'mcp',
              },
            },
          },
        },
      },
      llm: { providers: { openai: { api_key: 'env:OPENAI_API_KEY' } } },
      agents: {
        a: { permissions: { mcp: ['everything', 'legacy'] } },
        b: { permissions: { mcp: ['everything'] } },
      },
    };
    host = await startFeatureTestHost([tracesFeature(), mcpFeature()], config, {
      secrets: environmentSecrets({ EVERYTHING_TOKEN: BEARER, LEGACY_SECRET: CLIENT_SECRET }),
    });
    await host.app.listen({ host: '127.0.0.1', port: 0 });
    meshUrl = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
    await Promise.all([bearerFront?.close(), oauthFront?.close(), oauth?.close()]);
    await Promise.all([streamable?.stop(), legacy?.stop()]);
  });

  const agentHeaders = (extra: Record<string, string> = {}) => ({ ...host.agentAuth('a'), ...extra });

  async function connect(transport: 'streamable' | 'sse', headers = agentHeaders()): Promise<Client> {
    const client = new Client({ name: 'openlegion-test', version: '1.0.0' });
    await client.connect(
      transport === 'streamable'
        ? new StreamableHTTPClientTransport(new URL(`${meshUrl}/mesh/mcp/everything`), {
            requestInit: { headers },
          })
        : new SSEClientTransport(new URL(`${meshUrl}/mesh/mcp/legacy/sse`), { requestInit: { headers } }),
    );
    return client;
  }

  it('lists the tools and calls echo over Streamable HTTP; only the vault token reaches the server', async () => {
    const client = await connect('streamable');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo');
    const result = await client.callTool({ name: 'echo', arguments: { message: 'through the host' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: through the host' }]);
    await client.close();
    expect(bearerFront.requests.length).toBeGreaterThanOrEqual(3);
    expect(bearerFront.requests.every((seen) => seen.authorization === `Bearer ${BEARER}`)).toBe(true);
    const agentToken = host.agentAuth('a').authorization;
    expect(bearerFront.requests.some((seen) => seen.authorization === agentToken)).toBe(false);
  });

  it('lists the tools and calls echo over legacy SSE, with an OAuth token from client credentials', async () => {
    const client = await connect('sse');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo');
    const result = await client.callTool({ name: 'echo', arguments: { message: 'old transport' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: old transport' }]);
    await client.close();
    // One token for every request, fetched with the client credentials grant.
    expect(oauth.issued).toHaveLength(1);
    expect(oauth.requests[0]).toEqual({
      grantType: 'client_credentials',
      clientId: 'openlegion',
      secretMatched: true,
      scope: 'mcp',
    });
    expect(oauthFront.requests.every((seen) => seen.authorization === `Bearer ${oauth.issued[0]}`)).toBe(
      true,
    );
    // The agent POSTed to the host's path; the server's own endpoint stayed with the host.
    expect(
      oauthFront.requests.some((seen) => seen.method === 'POST' && seen.path.startsWith('/message?')),
    ).toBe(true);
  });

  it('fetches a new OAuth token once when the server refuses the cached one', async () => {
    const client = await connect('sse');
    oauth.revokeAll();
    const issued = oauth.issued.length;
    const result = await client.callTool({ name: 'echo', arguments: { message: 'after revoke' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: after revoke' }]);
    expect(oauth.issued.length).toBe(issued + 1);
    await client.close();
  });

  it('fetches a new OAuth token when the cached one nears its expiry', async () => {
    const before = oauth.issued.length;
    // Tokens last an hour; the host renews 30 s early.
    await host.clock.advance(3_600_000 - 29_000);
    const client = await connect('sse');
    await client.listTools();
    expect(oauth.issued.length).toBe(before + 1);
    await client.close();
  });

  it('writes a trace hop for each call an agent makes under a trace', async () => {
    const client = await connect('streamable', agentHeaders({ 'x-trace-id': 'mcp-trace-1' }));
    await client.callTool({ name: 'echo', arguments: { message: 'traced' } });
    await client.close();
    const hops = host.service(TRACE_LOG).events('mcp-trace-1');
    expect(hops.find((hop) => hop.hop === 'mcp everything tools/call')).toMatchObject({
      agent: 'a',
      detail: { method: 'tools/call', tool: 'echo', status: 200 },
    });
  });

  it("refuses an agent another agent's session: ids are bound to the agent the server gave them", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${meshUrl}/mesh/mcp/everything`), {
      requestInit: { headers: agentHeaders() },
    });
    const client = new Client({ name: 'openlegion-test', version: '1.0.0' });
    await client.connect(transport);
    const session = transport.sessionId ?? '';
    expect(session).not.toBe('');
    const stolen = await fetch(`${meshUrl}/mesh/mcp/everything`, {
      method: 'POST',
      headers: {
        ...host.agentAuth('b'),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(stolen.status).toBe(404);
    expect(((await stolen.json()) as { error: unknown }).error).toMatchObject({
      code: 'MCP_SESSION_UNKNOWN',
      message: `MCP server "everything" gave agent "b" no session "${session.slice(0, 40)}" through this host; start a new one (initialize without Mcp-Session-Id)`,
    });
    // The owner goes on in its session.
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});
