import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type FakeLlm,
  type FakeSearchProvider,
  startFakeLlm,
  startFakeSearchProvider,
} from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';
import { startSiteContainer } from './support/site-container.js';

/**
 * An agent that researches, in its hardened container: the scripted model searches (the host calls
 * a fake Brave on loopback with the key only the host holds), fetches two of the results from a
 * site container through the egress proxy, and writes its notes to the workspace and the blackboard.
 * The trace shows every hop; `costs` counts the search; an agent without `permissions.search` is
 * told the line to add. The site is granted by CIDR: '@web' rightly refuses private addresses.
 */
const SITE_SUBNET = '10.213.79.0/24';
const SITE_ADDRESS = '10.213.79.10';
const SITE = `http://${SITE_ADDRESS}:8080`;
const PROVIDER_KEY = 'sk-e2e-provider-key-research';
const BRAVE_KEY = 'BSA-e2e-brave-key-research-3f9a';

/** Two articles with the boilerplate real pages carry around them (navigation, share bar, related links). */
const SITE_HANDLER = `(req, res) => {
  const n = req.url.endsWith('/2') ? 2 : 1;
  const para = (i) => '<p>Tide article ' + n + ', paragraph ' + i + ': the moon pulls the ocean into two bulges, and the turning Earth carries each coast through them twice a day. ARTICLE-MARK-' + n + '.</p>';
  const body = '<html><head><title>Tides ' + n + '</title></head><body>'
    + '<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/about">About</a></nav>'
    + '<div class="share-bar"><a href="#">Share on Facebook</a> <a href="#">Share on X</a></div>'
    + '<article><h1>Why the sea rises twice a day (' + n + ')</h1>' + [1,2,3,4,5,6].map(para).join('') + '</article>'
    + '<aside class="related-links"><ul><li><a href="/a">Related: ten facts about the moon</a></li><li><a href="/b">Related: surfing</a></li></ul></aside>'
    + '</body></html>';
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
}`;

const script = {
  rules: [
    { match: { tool_result: 'wrote research/tides' }, reply: { text: 'Notes written.' } },
    {
      match: { tool_result: 'ARTICLE-MARK-2' },
      reply: {
        tool_calls: [
          {
            id: 'notes',
            name: 'write_file',
            arguments: {
              path: 'notes/tides.md',
              content: '# Tides\n- the moon pulls two bulges (sources 1, 2)\n',
            },
          },
          {
            id: 'board',
            name: 'blackboard_put',
            arguments: { key: 'research/tides', value: { sources: [`${SITE}/tides/1`, `${SITE}/tides/2`] } },
          },
        ],
      },
    },
    {
      match: { tool_result: 'Tides — result 1' },
      reply: {
        tool_calls: [
          { id: 'fetch-1', name: 'web_fetch', arguments: { url: `${SITE}/tides/1`, format: 'text' } },
          { id: 'fetch-2', name: 'web_fetch', arguments: { url: `${SITE}/tides/2`, format: 'text' } },
        ],
      },
    },
    { match: { tool_result: 'may not search the web' }, reply: { text: 'Search was refused.' } },
    {
      match: { last_message: 'research tides' },
      reply: { tool_calls: [{ id: 'search', name: 'web_search', arguments: { query: 'tides', count: 2 } }] },
    },
  ],
};

describe('an agent that researches (docker)', () => {
  let llm: FakeLlm;
  let brave: FakeSearchProvider;
  let mesh: E2eMesh;
  let stopSite: (() => Promise<void>) | undefined;
  const env = { E2E_PROVIDER_KEY: PROVIDER_KEY, E2E_BRAVE_KEY: BRAVE_KEY };
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env });

  /** The tool results the model was sent, by tool call id. */
  function toolResults(): Map<string, string> {
    const results = new Map<string, string>();
    for (const call of llm.requests)
      for (const message of (
        call.body as { messages: { role: string; tool_call_id?: string; content: string }[] }
      ).messages)
        if (message.role === 'tool' && message.tool_call_id)
          results.set(message.tool_call_id, message.content);
    return results;
  }

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    brave = await startFakeSearchProvider({
      kind: 'brave',
      apiKey: BRAVE_KEY,
      pages: (query) =>
        [1, 2, 3].map((n) => ({
          title: `${query[0]?.toUpperCase()}${query.slice(1)} — result ${n}`,
          url: `${SITE}/${query}/${n}`,
          snippet: `About ${query}, page ${n}.`,
        })),
    });
    stopSite = await startSiteContainer({
      name: `ol-e2e-research-site-${process.pid}`,
      subnet: SITE_SUBNET,
      address: SITE_ADDRESS,
      handler: SITE_HANDLER,
    });
    mesh = await writeMesh({
      prefix: 'e2e-research',
      providerUrl: llm.url,
      runtime: 'docker',
      agentFields: {
        alpha: `permissions: { search: true, egress: ['@web', '${SITE_SUBNET}'], egress_ports: [80, 443, 8080], blackboard: { read: ['*'], write: ['research/*'] } }`,
      },
      extra: `search:\n  providers:\n    brave: { base_url: "${brave.baseUrl}", api_key: env:E2E_BRAVE_KEY }\n`,
    });
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
  });

  afterAll(async () => {
    await cli('stop');
    await removeMesh(mesh.name).catch(() => {});
    await stopSite?.();
    await llm?.close();
    await brave?.close();
  });

  it('searches through the host, reads two results through the egress proxy, and writes its notes', async () => {
    const sent = await cli('send', 'alpha', 'research tides');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('Notes written.');

    // The host searched with the key it holds; the model got numbered results.
    expect(brave.requests).toHaveLength(1);
    expect(brave.requests[0]?.headers['x-subscription-token']).toBe(BRAVE_KEY);
    const results = toolResults();
    expect(results.get('search')).toContain(`1. Tides — result 1\n   ${SITE}/tides/1`);
    // Both pages came through the proxy, as their article without the boilerplate around it.
    for (const n of [1, 2]) {
      const page = results.get(`fetch-${n}`) ?? '';
      expect(page).toContain(`ARTICLE-MARK-${n}`);
      expect(page).not.toContain('Share on Facebook');
      expect(page).not.toContain('Related: surfing');
    }
    // The notes: a workspace file and a blackboard entry.
    expect(results.get('notes')).toContain('notes/tides.md');
    const token = (await readFile(path.join(mesh.dataDir, 'operator-token'), 'utf8')).trim();
    const notes = await fetch(`http://127.0.0.1:${mesh.port}/api/agents/alpha/workspace/notes/tides.md`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await notes.text()).toContain('the moon pulls two bulges');
    expect((await cli('blackboard', 'get', 'research/tides')).stdout).toContain(`${SITE}/tides/2`);

    // One trace holds every hop: the turn's LLM calls, the search, both fetches' egress, the write.
    const traces = JSON.parse((await cli('traces', '--json')).stdout) as Array<{
      trace_id: string;
      agents: string[];
    }>;
    const trace = traces.find((candidate) => candidate.agents.includes('alpha'));
    const hops = JSON.parse((await cli('traces', trace?.trace_id ?? '', '--json')).stdout) as Array<{
      hop: string;
      detail?: { host?: string };
    }>;
    const names = hops.map((hop) => hop.hop);
    expect(names).toEqual(
      expect.arrayContaining([
        'lane.queued',
        'http POST /v1/chat/completions',
        'http POST /mesh/search',
        'http PUT /mesh/blackboard/entries/*',
        'lane.done',
      ]),
    );
    // web_fetch told the proxy the turn's trace with each tunnel: both fetches are hops of it.
    const tunnels = hops.filter((hop) => hop.hop === 'egress allowed' && hop.detail?.host === SITE_ADDRESS);
    expect(tunnels, JSON.stringify(hops)).toHaveLength(2);

    const costs = JSON.parse((await cli('costs', '--agent', 'alpha', '--json')).stdout) as {
      today: { model: string; calls: number; cost_usd: number }[];
    };
    expect(costs.today).toContainEqual(
      expect.objectContaining({ model: 'search/brave', calls: 1, cost_usd: 0.005 }),
    );
  });

  it('refuses an agent without permissions.search, telling the model the line to add', async () => {
    const sent = await cli('send', 'beta', 'research tides');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('Search was refused.');
    const refusal = [...toolResults().values()].find((text) => text.includes('MESH_FORBIDDEN'));
    expect(refusal).toContain(
      'agent "beta" may not search the web: add "search: true" under agents.beta.permissions in mesh.yaml',
    );
    expect(brave.requests).toHaveLength(1);
  });
});
