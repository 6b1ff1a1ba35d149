import { type AgentTool, EGRESS_REFUSED_HEADER, OpenLegionError } from '@openlegion/protocol';
import type { Page, Response } from 'playwright-core';
import { z } from 'zod';
import { describeEvent } from '../actions/action-report.js';
import { egressRefused, navigationError } from '../session/browser-errors.js';
import type { BrowserSession } from '../session/browser-session.js';
import { probeEgressRefusal } from '../session/egress-refusal-probe.js';
import type { ProxySettings } from '../session/launch-options.js';
import type { SessionEvent } from '../session/session-events.js';
import { browserTool } from './browser-tool.js';

const SNAPSHOT_HINT = 'Next: browser_snapshot to see the page and get refs.';

/** browser_navigate, browser_history and browser_tabs. */
export function navigationTools(session: BrowserSession): AgentTool[] {
  const proxied = session.proxied;
  const navigate = browserTool(session, {
    name: 'browser_navigate',
    description:
      'Open a URL in the active tab. Afterwards call browser_snapshot to see the page and get element refs; ' +
      'then act by ref (browser_click, browser_type, …).',
    input: z.object({
      url: z.string().min(1).describe('Absolute URL; https:// is assumed when no scheme is given'),
    }),
    run: async ({ url }) => {
      const target = /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `https://${url}`;
      const tab = await session.activeTab();
      const mark = session.events.mark();
      try {
        const response = await goto(tab.page, target, session.navigationTimeoutMs, proxied, session.proxy);
        return `${await pageLine(tab.page, response)}\n${SNAPSHOT_HINT}`;
      } catch (error) {
        // A URL that serves a file "fails" to load as a page: report the download instead.
        if (!(error instanceof Error && error.message.includes('Download is starting'))) throw error;
        const isDownload = (event: SessionEvent) => event.kind.startsWith('download');
        if (!(await session.events.since(mark, 0)).some(isDownload)) {
          await tab.page
            .waitForEvent('download', { timeout: session.actionTimeoutMs })
            .catch(() => undefined);
        }
        const downloads = (await session.events.since(mark)).filter(isDownload);
        if (!downloads.length) throw error;
        return [`${target} is a file, not a page`, ...downloads.flatMap(describeEvent)].join('\n');
      }
    },
  });
  const history = browserTool(session, {
    name: 'browser_history',
    description: 'Go back, go forward or reload the active tab. Refs from before go stale: snapshot again.',
    input: z.object({ go: z.enum(['back', 'forward', 'reload']) }),
    run: async ({ go }) => {
      const tab = await session.activeTab();
      const from = tab.page.url();
      const options = { waitUntil: 'domcontentloaded' as const };
      const response = await (go === 'back'
        ? tab.page.goBack(options)
        : go === 'forward'
          ? tab.page.goForward(options)
          : tab.page.reload(options)
      ).catch((error: unknown) => {
        throw navigationError(error, from, session.navigationTimeoutMs, proxied);
      });
      if (response === null && go !== 'reload' && tab.page.url() === from) return `nothing to go ${go} to`;
      return `${await pageLine(tab.page, response)}\n${SNAPSHOT_HINT}`;
    },
  });
  const tabs = browserTool(session, {
    name: 'browser_tabs',
    description:
      'List, open, close or switch tabs. Actions go to the active tab; a link that opens a new tab makes it active.',
    input: z.object({
      action: z.enum(['list', 'open', 'close', 'switch']),
      tab: z.number().int().positive().optional().describe('Tab number, for close and switch'),
      url: z.string().optional().describe('For open: a URL to load in the new tab'),
    }),
    run: async ({ action, tab: id, url }) => {
      if (action === 'open') {
        const tab = await session.openTab();
        if (url) await goto(tab.page, url, session.navigationTimeoutMs, proxied, session.proxy);
        return `opened tab ${tab.id}${url ? ` at ${tab.page.url()}` : ''}\n${await tabList(session)}`;
      }
      if (action === 'close' || action === 'switch') {
        if (id === undefined) throw new OpenLegionError('REQUEST_INVALID', `tab: which tab to ${action}`);
        if (action === 'close') await session.closeTab(id);
        else await session.switchTab(id);
      }
      return tabList(session);
    },
  });
  return [navigate, history, tabs] as AgentTool[];
}

/** Load a URL; refusals, timeouts and network failures become errors naming the URL. */
export async function goto(
  page: Page,
  url: string,
  timeoutMs: number,
  proxied: boolean,
  proxy?: ProxySettings,
): Promise<Response | null> {
  const response = await page
    .goto(url, { waitUntil: 'domcontentloaded', timeout: timeoutMs })
    .catch(async (error: unknown) => {
      const failure = navigationError(error, url, timeoutMs, proxied);
      // Chromium keeps a refused tunnel's answer to itself: ask the proxy why, once.
      const reason =
        failure.code === 'BROWSER_EGRESS_REFUSED' && proxy ? await probeEgressRefusal(proxy, url) : undefined;
      throw reason
        ? egressRefused(url, `the egress proxy refused it (${withoutPrefix(reason)})`, error)
        : failure;
    });
  // Only a plain-http answer can be the proxy's own: an https one comes from the site, through the tunnel.
  if (
    response &&
    /^http:/i.test(response.url()) &&
    response.status() === 403 &&
    response.headers()[EGRESS_REFUSED_HEADER] === 'refused'
  ) {
    const body = withoutPrefix(await response.text().catch(() => ''));
    throw egressRefused(url, `the egress proxy refused it${body ? ` (${body})` : ''}`);
  }
  return response;
}

function withoutPrefix(reason: string): string {
  return reason.trim().replace(/^egress refused: /, '');
}

async function pageLine(page: Page, response: Response | null): Promise<string> {
  const status = response ? ` (HTTP ${response.status()})` : '';
  return `at ${JSON.stringify(await page.title())} ${page.url()}${status}`;
}

async function tabList(session: BrowserSession): Promise<string> {
  const lines = await Promise.all(
    session.listTabs().map(async (tab) => {
      const mark = tab.id === session.activeId ? ' (active)' : '';
      return `tab ${tab.id}${mark}: ${JSON.stringify(await tab.page.title().catch(() => ''))} ${tab.page.url()}`;
    }),
  );
  return lines.join('\n') || 'no tabs open';
}
