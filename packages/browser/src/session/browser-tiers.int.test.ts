import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageServer, startPageServer } from '../../test/page-server.js';
import { LOOPBACK_ONLY_ARGS } from '../../test/refusing-proxy.js';
import { callTool } from '../../test/tool-harness.js';
import { createBrowserTools } from '../tools/create-browser-tools.js';
import { createBrowserSession } from './create-browser-session.js';
import { BASE_CHROMIUM_ARGS, SYSTEM_CHROMIUM } from './launch-options.js';

const probe = `<title>Probe</title><p id="out"></p><script>
  document.getElementById('out').textContent = 'webdriver=' + navigator.webdriver + ' ua=' + navigator.userAgent;
</script>`;

/** A loopback port nobody listens on (for Chromium's CDP endpoint). */
async function freePort(): Promise<number> {
  const probeServer = createServer();
  await new Promise<void>((resolve) => probeServer.listen(0, '127.0.0.1', resolve));
  const { port } = probeServer.address() as AddressInfo;
  await new Promise((resolve) => probeServer.close(resolve));
  return port;
}

describe('browser tiers', () => {
  let server: PageServer;
  let workspace: string;

  beforeAll(async () => {
    server = await startPageServer({ '/probe': probe });
    workspace = await mkdtemp(path.join(tmpdir(), 'browser-tiers-'));
  });

  afterAll(async () => {
    await server?.close();
    await rm(workspace, { recursive: true, force: true });
  });

  const probeWith = async (tier: 'basic' | 'stealth') => {
    const session = createBrowserSession({
      tier,
      profileDir: path.join(workspace, tier),
      proxy: null,
      extraArgs: LOOPBACK_ONLY_ARGS,
    });
    try {
      const tools = createBrowserTools({ session });
      await callTool(tools, 'browser_navigate', { url: server.url('/probe') }, workspace);
      return (await callTool(tools, 'browser_get_text', { selector: '#out' }, workspace)).text;
    } finally {
      await session.close();
    }
  };

  it('basic shows the automation tells that stealth removes', async () => {
    expect(await probeWith('basic')).toMatch(/^webdriver=true ua=.*HeadlessChrome/);
    const stealth = await probeWith('stealth');
    expect(stealth).toMatch(
      /^webdriver=false ua=Mozilla\/5\.0 \(X11; Linux x86_64\).* Chrome\/\d+\.0\.0\.0 Safari/,
    );
    expect(stealth).not.toContain('Headless');
  });

  it('cdp drives a browser it did not start, and leaves it running on close', async () => {
    const port = await freePort();
    const remote = await chromium.launchServer({
      executablePath: SYSTEM_CHROMIUM,
      args: [...BASE_CHROMIUM_ARGS, ...LOOPBACK_ONLY_ARGS, `--remote-debugging-port=${port}`],
    });
    try {
      const cdpUrl = `http://127.0.0.1:${port}`;
      const session = createBrowserSession({ tier: 'cdp', cdpUrl, profileDir: workspace, proxy: null });
      const tools = createBrowserTools({ session });
      await callTool(tools, 'browser_navigate', { url: server.url('/probe') }, workspace);
      expect((await callTool(tools, 'browser_snapshot', {}, workspace)).text).toContain('"Probe"');
      await session.close();
      const again = await chromium.connectOverCDP(cdpUrl);
      expect(again.isConnected()).toBe(true);
      await again.close();
    } finally {
      await remote.close();
    }
  });

  it('says the browser did not start when Chromium cannot be launched', async () => {
    const session = createBrowserSession({
      profileDir: path.join(workspace, 'none'),
      executablePath: '/nonexistent/chromium',
      proxy: null,
    });
    const { text, result } = await callTool(
      createBrowserTools({ session }),
      'browser_snapshot',
      {},
      workspace,
    );
    expect(result.isError).toBe(true);
    expect(text).toMatch(/^BROWSER_LAUNCH_FAILED: the browser did not start: /);
    expect(session.isRunning).toBe(false);
  });
});
