import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageServer, type Route, startPageServer } from '../../test/page-server.js';
import { LOOPBACK_ONLY_ARGS, startRefusingProxy } from '../../test/refusing-proxy.js';
import { callTool } from '../../test/tool-harness.js';
import type { BrowserSession } from '../session/browser-session.js';
import { createBrowserSession } from '../session/create-browser-session.js';
import { createBrowserTools } from '../tools/create-browser-tools.js';
import { DEFAULT_SNAPSHOT_MAX_CHARS } from '../tools/snapshot-tool.js';
import { isInteractive, walkNodes } from './aria-node.js';
import { takeSnapshot } from './take-snapshot.js';

/** Three saved real-world pages kept in the repository (test/fixtures/web-pages/README.md). */
const PAGES_DIR = path.resolve(import.meta.dirname, '../../../../test/fixtures/web-pages');
const sites = readdirSync(PAGES_DIR).filter((site) => existsSync(path.join(PAGES_DIR, site, 'source.html')));

describe('snapshots of saved real-world pages', () => {
  let server: PageServer;
  let proxy: Awaited<ReturnType<typeof startRefusingProxy>>;
  let workspace: string;
  let session: BrowserSession;

  beforeAll(async () => {
    const routes: Record<string, Route> = {};
    for (const site of sites)
      routes[`/${site}/`] = readFileSync(path.join(PAGES_DIR, site, 'source.html'), 'utf8');
    server = await startPageServer(routes);
    // Their scripts and images point at remote hosts: every one is refused, none is reached.
    proxy = await startRefusingProxy();
    workspace = await mkdtemp(path.join(tmpdir(), 'browser-pages-'));
    session = createBrowserSession({
      profileDir: path.join(workspace, '.profile'),
      proxy: { server: proxy.server, bypass: '127.0.0.1' },
      extraArgs: LOOPBACK_ONLY_ARGS,
      navigationTimeoutMs: 20_000,
    });
  });

  afterAll(async () => {
    await session?.close();
    await server?.close();
    await proxy?.close();
    await rm(workspace, { recursive: true, force: true });
  });

  it('has the three saved pages, one of them (lwn-1) past the snapshot cap', () => {
    expect(sites.sort()).toEqual(['ars-1', 'gitlab-blog', 'lwn-1']);
  });

  it.each(sites)(
    'snapshots %s within the cap, every interactive element addressable or the cut said',
    async (site) => {
      const tools = createBrowserTools({ session });
      const navigated = await callTool(
        tools,
        'browser_navigate',
        { url: server.url(`/${site}/`) },
        workspace,
      );
      expect(navigated.result.isError).toBeUndefined();
      const { text, result } = await callTool(tools, 'browser_snapshot', {}, workspace);
      expect(result.isError).toBeUndefined();
      expect(text.length).toBeLessThanOrEqual(DEFAULT_SNAPSHOT_MAX_CHARS);
      const full = await session.run(async () =>
        takeSnapshot(await session.activeTab(), session.refs, {
          compact: true,
          interactiveOnly: false,
          urls: false,
          maxChars: 10_000_000,
        }),
      );
      const interactive = [...walkNodes(full.nodes)].filter((node) => isInteractive(node) && node.ref);
      const missing = interactive.filter((node) => !full.text.includes(`[${node.ref}]`));
      expect(missing).toEqual([]);
      // lwn-1 (a long weekly edition) is past the cap, so the cut is checked on a real page too.
      if (site === 'lwn-1') expect(full.text.length).toBeGreaterThan(DEFAULT_SNAPSHOT_MAX_CHARS);
      if (full.truncated || full.text.length > DEFAULT_SNAPSHOT_MAX_CHARS)
        expect(text).toMatch(/\[truncated: /);
    },
  );
});
