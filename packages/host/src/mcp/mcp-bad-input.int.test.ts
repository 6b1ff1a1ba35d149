import type { MeshConfigInput } from '@openlegion/protocol';
import { type FakeOAuth, startFakeOAuth } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { type HostileMcpServer, startHostileMcpServer } from '../../test/hostile-mcp-server.js';
import { environmentSecrets } from '../secrets/index.js';
import { tracesFeature } from '../traces/index.js';
import { MCP_BODY_MAX_BYTES, mcpFeature } from './index.js';

const TOKEN = 'the-servers-bearer-token-in-the-vault';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

describe('remote MCP servers that misbehave, and agents that ask wrongly', () => {
  let hostile: HostileMcpServer;
  let oauth: FakeOAuth;
  let host: FeatureTestHost;
  let closedPort: string;

  beforeAll(async () => {
    [hostile, oauth] = await Promise.all([
      startHostileMcpServer(),
      startFakeOAuth({ clientId: 'id', clientSecret: 'right' }),
    ]);
    // A port that was free a moment ago: nothing listens there.
    const gone = await startHostileMcpServer();
    closedPort = gone.origin;
    await gone.close();
    const at = (path: string) => ({ url: `${hostile.origin}${path}`, auth: { bearer: 'vault:TOKEN' } });
    const servers = {
      unauthorized: at('/401'),
      forbidden: at('/403'),
      failing: at('/503'),
      hanging: { ...at('/hang'), timeout_ms: 200 },
      moved: at('/redirect'),
      echo: at('/echo-json'),
      reflect: at('/reflect'),
      noauth: { url: `${hostile.origin}/401` },
      unreachable: { url: `${closedPort}/mcp` },
      metadata: { url: 'http://169.254.169.254/mcp' },
      unset: { url: `${hostile.origin}/echo-json`, auth: { bearer: 'vault:NOT_SET' } },
      badclient: {
        url: `${hostile.origin}/echo-json`,
        auth: { oauth: { token_url: oauth.tokenUrl, client_id: 'id', client_secret: 'vault:WRONG' } },
      },
      foreign: { ...at('/sse-foreign'), transport: 'sse' as const },
      late: { ...at('/sse-late'), transport: 'sse' as const },
      twice: { ...at('/sse-twice'), transport: 'sse' as const },
      quiet: { ...at('/hang'), transport: 'sse' as const, timeout_ms: 200 },
    };
    const config: MeshConfigInput = {
      llm: { providers: { openai: { api_key: 'env:OPENAI_API_KEY' } } },
      mcp: { servers },
      agents: { a: { permissions: { mcp: Object.keys(servers) } }, b: {} },
    };
    host = await startFeatureTestHost([tracesFeature(), mcpFeature()], config, {
      secrets: environmentSecrets({ TOKEN, WRONG: 'wrong' }),
    });
  });
  afterAll(async () => {
    await host?.stop();
    await Promise.all([hostile?.close(), oauth?.close()]);
  });

  const post = (server: string, agent = 'a', headers: Record<string, string> = {}) =>
    host.app.inject({
      method: 'POST',
      url: `/mesh/mcp/${server}`,
      headers: {
        ...host.agentAuth(agent),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      payload: INITIALIZE,
    });
  const errorOf = (response: { json(): unknown }) => (response.json() as { error: unknown }).error;

  it('refuses an agent not granted the server, naming the mesh.yaml line', async () => {
    const response = await post('echo', 'b');
    expect(response.statusCode).toBe(403);
    expect(errorOf(response)).toMatchObject({
      code: 'MESH_FORBIDDEN',
      message:
        'agent "b" may not use MCP server "echo": add "echo" to agents.b.permissions.mcp in mesh.yaml to allow it',
    });
  });

  it('answers 404 for a server mesh.yaml does not name', async () => {
    const response = await post('nosuch', 'b');
    expect(response.statusCode).toBe(404);
    expect(errorOf(response)).toMatchObject({
      code: 'MCP_SERVER_UNKNOWN',
      message: `no remote MCP server "nosuch" in mesh.yaml's mcp.servers (agent "b" may use: none)`,
    });
  });

  it('names the path of the other transport', async () => {
    const response = await post('foreign');
    expect(response.statusCode).toBe(400);
    expect(errorOf(response)).toMatchObject({
      code: 'MCP_TRANSPORT_MISMATCH',
      message:
        'MCP server "foreign" speaks sse (mcp.servers.foreign.transport in mesh.yaml): connect to /mesh/mcp/foreign/sse',
    });
  });

  it("maps the server's 401 to a refused credential, quoting it without the token", async () => {
    const response = await post('unauthorized');
    expect(response.statusCode).toBe(502);
    expect(errorOf(response)).toMatchObject({
      code: 'MCP_UPSTREAM_AUTH',
      message:
        'MCP server "unauthorized" refused the host\'s credential (HTTP 401: token Bearer [credential] is not welcome here): check mcp.servers.unauthorized.auth in mesh.yaml and the vault entry TOKEN (openlegion vault set NAME)',
    });
    expect(response.headers['www-authenticate']).toBeUndefined();
    expect(response.body).not.toContain(TOKEN);
  });

  it("maps the server's 403 the same way, and says when no auth is configured", async () => {
    expect(errorOf(await post('forbidden'))).toMatchObject({ code: 'MCP_UPSTREAM_AUTH' });
    expect(errorOf(await post('noauth'))).toMatchObject({
      code: 'MCP_UPSTREAM_AUTH',
      message:
        'MCP server "noauth" refused the host\'s credential (HTTP 401: token is not welcome here): it wants credentials: set mcp.servers.noauth.auth in mesh.yaml (bearer or oauth, from the vault)',
    });
  });

  it("maps the server's 5xx to 502, quoting its body in printable text", async () => {
    const response = await post('failing');
    expect(response.statusCode).toBe(502);
    expect(errorOf(response)).toMatchObject({
      code: 'MCP_UPSTREAM_FAILED',
      message: 'MCP server "failing" answered HTTP 503: upstream overloaded',
      retryable: true,
    });
  });

  it('gives up on a server that never answers after its timeout_ms', async () => {
    const response = await post('hanging');
    expect(response.statusCode).toBe(504);
    expect(errorOf(response)).toMatchObject({
      code: 'MCP_UPSTREAM_TIMEOUT',
      message: `MCP server "hanging" (${new URL(hostile.origin).host}) did not answer within 200 ms (mcp.servers.hanging.timeout_ms)`,
    });
  });

  it('reports an unreachable server', async () => {
    const response = await post('unreachable');
    expect(response.statusCode).toBe(502);
    const error = errorOf(response) as { code: string; message: string };
    expect(error.code).toBe('MCP_UPSTREAM_FAILED');
    expect(error.message).toMatch(
      /^MCP server "unreachable" \(127\.0\.0\.1:\d+\) could not be reached: .*ECONNREFUSED/,
    );
  });

  it('follows no redirect', async () => {
    const response = await post('moved');
    expect(errorOf(response)).toMatchObject({
      code: 'MCP_UPSTREAM_FAILED',
      message:
        'MCP server "moved" answered HTTP 302, a redirect, which the host does not follow: set mcp.servers.moved.url in mesh.yaml to where it points',
    });
  });

  it('never connects to a link-local (metadata) address, even one written in mesh.yaml', async () => {
    expect(errorOf(await post('metadata'))).toMatchObject({
      code: 'MCP_UPSTREAM_FAILED',
      message:
        'MCP server "metadata" at 169.254.169.254: 169.254.169.254 is a link-local (cloud metadata) address',
    });
  });

  it('says how to set a vault entry that is missing', async () => {
    const response = await post('unset');
    expect(response.statusCode).toBe(503);
    expect(errorOf(response)).toMatchObject({
      code: 'MCP_CREDENTIAL_MISSING',
      message:
        'MCP server "unset" needs vault:NOT_SET (mcp.servers.unset.auth.bearer in mesh.yaml), which is not set: export NOT_SET in the host environment',
    });
  });

  it('reports an OAuth token endpoint that refuses the client', async () => {
    expect(errorOf(await post('badclient'))).toMatchObject({
      code: 'MCP_UPSTREAM_AUTH',
      message: `the OAuth token endpoint of MCP server "badclient" (${new URL(oauth.tokenUrl).host}) refused the client credentials (HTTP 401: invalid_client): check mcp.servers.badclient.auth.oauth in mesh.yaml and the vault entry WRONG`,
    });
  });

  it("sends the server its credential in place of the agent's, and not its www-authenticate back", async () => {
    const response = await post('echo', 'a', { 'mcp-protocol-version': '2025-06-18', 'x-other': 'no' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['www-authenticate']).toBeUndefined();
    const seen = hostile.requests.at(-1);
    expect(seen?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen?.headers['mcp-protocol-version']).toBe('2025-06-18');
    expect(seen?.headers['x-other']).toBeUndefined();
  });

  it('scrubs the credential from what a server echoes back, in its encodings', async () => {
    const response = await post('reflect');
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(
      'event: message\ndata: {"raw":"[$CRED{TOKEN}]"}\n\nevent: message\ndata: {"b64":"[$CRED{TOKEN}]"}\n\n',
    );
  });

  it('refuses a message larger than the cap before reading it', async () => {
    const response = await host.app.inject({
      method: 'POST',
      url: '/mesh/mcp/echo',
      headers: { ...host.agentAuth('a'), 'content-type': 'application/json' },
      payload: Buffer.alloc(MCP_BODY_MAX_BYTES + 1, 0x20),
    });
    expect(response.statusCode).toBe(413);
    expect(errorOf(response)).toMatchObject({
      code: 'MESH_VALUE_TOO_LARGE',
      message: `an MCP message is at most ${MCP_BODY_MAX_BYTES} bytes; this one is ${MCP_BODY_MAX_BYTES + 1}`,
    });
  });

  const openSse = (server: string) =>
    host.app.inject({ method: 'GET', url: `/mesh/mcp/${server}/sse`, headers: host.agentAuth('a') });

  it('refuses an SSE endpoint on another origin before the agent sees it', async () => {
    const response = await openSse('foreign');
    expect(response.statusCode).toBe(502);
    expect(errorOf(response)).toMatchObject({
      code: 'MCP_UPSTREAM_FAILED',
      message: `MCP server "foreign" named its message endpoint "http://elsewhere.invalid/steal?sessionId=1", which is not on ${hostile.origin} (its url in mesh.yaml); the host sends messages only there`,
    });
  });

  it('refuses an SSE stream whose first event is not its endpoint', async () => {
    expect(errorOf(await openSse('late'))).toMatchObject({
      code: 'MCP_UPSTREAM_FAILED',
      message:
        'MCP server "late" sent another event before its endpoint event (is mcp.servers.late.url its SSE URL?)',
    });
  });

  it('gives up on an SSE server that sends no endpoint within its timeout_ms', async () => {
    expect(errorOf(await openSse('quiet'))).toMatchObject({ code: 'MCP_UPSTREAM_TIMEOUT' });
  });

  it('ends an SSE stream whose server names a second endpoint, keeping the first', async () => {
    const response = await openSse('twice');
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatch(
      /^event: endpoint\ndata: \/mesh\/mcp\/twice\/messages\?session=[\w-]+\n\n: keep\n\n$/,
    );
  });

  it('answers 404 for a message to a session that is not open, or is another agent’s', async () => {
    const response = await host.app.inject({
      method: 'POST',
      url: '/mesh/mcp/twice/messages?session=made-up',
      headers: { ...host.agentAuth('a'), 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(response.statusCode).toBe(404);
    expect(errorOf(response)).toMatchObject({
      code: 'MCP_SESSION_UNKNOWN',
      message:
        'no open SSE session "made-up" of MCP server "twice" for agent "a" (its event stream ended or never opened); connect again to /mesh/mcp/twice/sse',
    });
  });
});
