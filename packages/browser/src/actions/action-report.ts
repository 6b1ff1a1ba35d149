import type { Page } from 'playwright-core';
import type { BrowserSession, Tab } from '../session/browser-session.js';
import type { SessionEvent } from '../session/session-events.js';
import { type AriaNode, isInteractive, toAriaNodes, walkNodes } from '../snapshot/aria-node.js';

const MAX_NEW_LISTED = 8;
const SETTLE_MS = 5_000;

/**
 * Run an action and describe what it changed: the URL and title, dialogs answered, downloads
 * saved, tabs opened or closed, and the elements that appeared (listed with refs when few), so
 * the model often needs no extra snapshot.
 */
export async function reportAction(
  session: BrowserSession,
  tab: Tab,
  done: string,
  action: () => Promise<unknown>,
): Promise<string> {
  const before = { url: tab.page.url(), title: await tab.page.title().catch(() => '') };
  const mark = session.events.mark();
  await action();
  await settle(tab.page);
  const events = await session.events.since(mark);
  // A new tab the action opened is active now: its page is the one to describe.
  const active = await session.activeTab();
  if (active.id !== tab.id) await settle(active.page);
  const lines = [done];
  const navigated = events.some((event) => event.kind === 'navigated' && event.tabId === active.id);
  const after = { url: active.page.url(), title: await active.page.title().catch(() => '') };
  if (active.id !== tab.id || after.url !== before.url || after.title !== before.title) {
    lines.push(`now: tab ${active.id} ${JSON.stringify(after.title)} ${after.url}`);
  }
  lines.push(...events.flatMap(describeEvent));
  if (navigated || active.id !== tab.id) {
    lines.push('new page: refs from before are stale — take a snapshot');
  } else {
    const line = await newElementsLine(session, active);
    if (line) lines.push(line);
  }
  return lines.join('\n');
}

/** Wait for a started navigation to reach DOMContentLoaded and for two frames to paint. */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('domcontentloaded', { timeout: SETTLE_MS }).catch(() => undefined);
  await page
    .evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
    .catch(() => undefined);
}

/** The lines an event adds to a result. */
export function describeEvent(event: SessionEvent): string[] {
  switch (event.kind) {
    case 'dialog':
      return [`dialog (${event.type}) ${JSON.stringify(event.message)}: ${event.answer}`];
    case 'download':
      return [`downloaded ${event.path} (${event.bytes} bytes, in the workspace)`];
    case 'download-failed':
      return [`download of ${event.name} failed: ${event.reason}`];
    case 'tab-opened':
      return [`opened new tab ${event.tabId} (now active; switch back with browser_tabs)`];
    case 'tab-closed':
      return [`tab ${event.tabId} closed`];
    case 'tab-crashed':
      return [`tab ${event.tabId} crashed (${event.url}); the next call reopens it`];
    case 'navigated':
      return [];
  }
}

/** Elements that appeared since the last snapshot the model saw, listed when few. */
async function newElementsLine(session: BrowserSession, tab: Tab): Promise<string | undefined> {
  if (!session.refs.hasSnapshot(tab.id)) return undefined;
  const json = await tab.page.ariaSnapshotJSON({ mode: 'ai', timeout: SETTLE_MS }).catch(() => undefined);
  if (json === undefined) return undefined;
  const refs = new Set<string>();
  const nodes = toAriaNodes(json, tab.id, session.refs, refs);
  session.refs.keepOnly(tab.id, refs);
  const fresh = session.refs.newSinceShown(tab.id, refs);
  if (fresh.size === 0) return undefined;
  const interactive: AriaNode[] = [...walkNodes(nodes)].filter(
    (node) => node.ref !== undefined && fresh.has(node.ref) && isInteractive(node),
  );
  const listed = interactive
    .slice(0, MAX_NEW_LISTED)
    .map(
      (node) => `${node.role}${node.name ? ` ${JSON.stringify(node.name.slice(0, 60))}` : ''} [${node.ref}]`,
    );
  const more = interactive.length > MAX_NEW_LISTED ? `, … (${interactive.length - MAX_NEW_LISTED} more)` : '';
  const list = listed.length ? `: ${listed.join(', ')}${more}` : '';
  return `${fresh.size} new elements (${interactive.length} to act on)${list}`;
}
