import { createAgentTools } from '@openlegion/agent';
import { EgressProxy } from '@openlegion/host';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The host's egress proxy and the agent's own web_fetch, wired as in the mesh (HTTP(S)_PROXY with
 * the agent's proxy token): a refusal reaches the model word for word, for http and https alike.
 * The resolver and the dialer are injected: no name is looked up, nothing is dialled.
 */
describe("a refused web_fetch, from the host's proxy to the agent's tool", () => {
  const dialed: string[] = [];
  let proxy: EgressProxy;
  let tools: ReturnType<typeof createAgentTools>;
  const saved = { ...process.env };

  beforeAll(async () => {
    proxy = new EgressProxy({
      identify: (token) => (token === 'proxy-token' ? 'researcher' : undefined),
      allowlist: () => ['*.wikipedia.org'],
      ports: () => [80, 443],
      logger: pino({ level: 'silent' }),
      resolve: async () => ['93.184.216.34'],
      dial: (address, port) => {
        dialed.push(`${address}:${port}`);
        throw new Error(`dialer called for ${address}:${port}`);
      },
    });
    const port = await proxy.listen(['127.0.0.1'], 0);
    const url = `http://researcher:proxy-token@127.0.0.1:${port}`;
    Object.assign(process.env, { HTTP_PROXY: url, HTTPS_PROXY: url, NO_PROXY: '' });
    tools = createAgentTools({
      memory: () => {
        throw new Error('no memory in this test');
      },
      mesh: { meshUrl: 'http://127.0.0.1:9', token: 'mesh-token' },
      browser: { tier: 'basic', evaluate: false, idle_timeout_ms: 300_000 },
      dataDir: '/nonexistent-data',
    });
  });
  afterAll(async () => {
    process.env = saved;
    await tools.close();
    await proxy.close();
  });

  it.each(['http', 'https'])('says which line of mesh.yaml to add, over %s', async (scheme) => {
    const webFetch = tools.tools.find((tool) => tool.name === 'web_fetch');
    if (!webFetch) throw new Error('no web_fetch tool');
    const url = `${scheme}://example.com/page`;
    const result = await webFetch.run(webFetch.input.parse({ url }), {
      workspace: '/nonexistent-workspace',
      signal: new AbortController().signal,
    });
    expect(result).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: `${url}: egress refused: example.com is not in agents.researcher.permissions.egress; to allow it add '@web' (any public host) or 'example.com' (this host only) to that list in mesh.yaml`,
        },
      ],
    });
    expect(dialed).toEqual([]);
  });
});
