import type { Locator, Page } from 'playwright-core';
import { type AriaNode, findByRef, toAriaNodes } from './aria-node.js';
import { type RefRegistry, staleRef } from './ref-registry.js';
import { renderSnapshot } from './render-snapshot.js';

/** What `browser_snapshot` may ask for. */
export interface SnapshotRequest {
  compact: boolean;
  interactiveOnly: boolean;
  maxDepth?: number;
  /** A ref (`e12`) or CSS selector: print only this element's subtree. */
  root?: string;
  /** An iframe's ref or CSS selector: print only that frame. */
  frame?: string;
  maxChars: number;
  urls: boolean;
}

/** A snapshot as printed, and what it registered. */
export interface Snapshot {
  text: string;
  /** The element tree (the whole page or the root's subtree). */
  nodes: AriaNode[];
  /** Every ref in the captured tree. */
  refs: Set<string>;
  newRefs: Set<string>;
  truncated: boolean;
  /** Characters before the cap. */
  fullChars: number;
}

const REF = /^e\d+$/;
const SNAPSHOT_TIMEOUT_MS = 15_000;

/**
 * Capture a tab's accessibility tree with Playwright's AI snapshot (JSON), give its elements our
 * refs, and print it. The capture is of the whole page (a ref `root` is cut out of it afterwards)
 * unless a CSS selector narrows it.
 */
export async function takeSnapshot(
  tab: { id: number; page: Page },
  registry: RefRegistry,
  request: SnapshotRequest,
): Promise<Snapshot> {
  const scope = request.frame ?? request.root;
  const selectorScope = scope && !REF.test(scope) ? scope : undefined;
  // The title comes in parallel: one round trip less per snapshot.
  const [json, title] = await Promise.all([
    selectorScope
      ? scopeLocator(tab.page, selectorScope, request.frame !== undefined).ariaSnapshotJSON({
          mode: 'ai',
          timeout: SNAPSHOT_TIMEOUT_MS,
        })
      : tab.page.ariaSnapshotJSON({ mode: 'ai', timeout: SNAPSHOT_TIMEOUT_MS }),
    tab.page.title().catch(() => ''),
  ]);
  const refs = new Set<string>();
  const all = toAriaNodes(json, tab.id, registry, refs);
  // Only a capture of the whole page tells which elements are gone.
  if (!selectorScope) registry.keepOnly(tab.id, refs);
  let nodes = all;
  if (scope && !selectorScope) {
    const root = findByRef(all, scope);
    if (!root) {
      registry.resolve(scope); // throws: stale or unknown
      throw staleRef(scope);
    }
    nodes = [root];
  }
  const newRefs = registry.markShown(tab.id, refs, { partial: selectorScope !== undefined });
  const lines = renderSnapshot(nodes, { ...request, newRefs });
  const header = `${JSON.stringify(title)} ${tab.page.url()} (tab ${tab.id})`;
  return { ...capLines(header, lines, request.maxChars), nodes, refs, newRefs };
}

function scopeLocator(page: Page, selector: string, isFrame: boolean): Locator {
  return isFrame ? page.frameLocator(selector).locator(':root') : page.locator(selector).first();
}

/** Join lines under `maxChars`, ending with an honest note of what was left out. */
export function capLines(
  header: string,
  lines: string[],
  maxChars: number,
): { text: string; truncated: boolean; fullChars: number } {
  const fullChars = lines.reduce((sum, line) => sum + line.length + 1, header.length);
  if (fullChars <= maxChars) return { text: [header, ...lines].join('\n'), truncated: false, fullChars };
  const budget = maxChars - 260; // room for the note
  const kept: string[] = [header];
  let used = header.length;
  for (const line of lines) {
    if (used + line.length + 1 > budget) break;
    kept.push(line);
    used += line.length + 1;
  }
  const hiddenRefs = lines
    .slice(kept.length - 1)
    .reduce((sum, line) => sum + (line.match(/ \[e\d+\]/g)?.length ?? 0), 0);
  kept.push(
    `[truncated: ${kept.length - 1} of ${lines.length} lines shown (${used} of ${fullChars} chars), ` +
      `${hiddenRefs} refs not shown. Narrow it: root=<ref of a section>, interactive_only=true, ` +
      'max_depth, or a larger max_chars]',
  );
  return { text: kept.join('\n'), truncated: true, fullChars };
}
