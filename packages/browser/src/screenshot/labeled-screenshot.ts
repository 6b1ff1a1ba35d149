import type { Page } from 'playwright-core';
import { type AriaNode, type Box, isInteractive, toAriaNodes, walkNodes } from '../snapshot/aria-node.js';
import type { RefRegistry } from '../snapshot/ref-registry.js';

/** One numbered box drawn on a labeled screenshot; `label` is the ref's number. */
export interface Mark {
  ref: string;
  label: string;
  role: string;
  name: string;
  /** Page viewport coordinates, CSS pixels. */
  box: Box;
}

const MAX_MARKS = 300;
const OVERLAY_ID = '__openlegion_marks__';
/** Drawn in this colour (tests look for it at the box edges). */
export const MARK_COLOR = '#ff00ff';

/**
 * A viewport screenshot with a numbered box on every visible interactive element — the numbers
 * are the refs' (box 12 is e12), so a multimodal model can act on what it sees. Takes a fresh
 * snapshot (registering refs) to find the elements; boxes of elements inside iframes are
 * measured from the page.
 */
export async function labeledScreenshot(
  tab: { id: number; page: Page },
  registry: RefRegistry,
): Promise<{ png: Buffer; marks: Mark[] }> {
  const page = tab.page;
  const refs = new Set<string>();
  const nodes = toAriaNodes(await page.ariaSnapshotJSON({ mode: 'ai', boxes: true }), tab.id, registry, refs);
  registry.keepOnly(tab.id, refs);
  registry.markShown(tab.id, refs);
  const viewport =
    page.viewportSize() ?? (await page.evaluate(() => ({ width: innerWidth, height: innerHeight })));
  const marks: Mark[] = [];
  for (const node of interactiveNodes(nodes)) {
    if (marks.length >= MAX_MARKS || !node.ref) break;
    const target = registry.resolve(node.ref);
    // Snapshot boxes are relative to their own frame; only main-frame ones are page coordinates.
    const inMainFrame = /^e\d+$/.test(target.ariaRef);
    const box = inMainFrame ? node.box : ((await page.getByRef(target.ariaRef).boundingBox()) ?? undefined);
    if (!box || !isVisibleIn(box, viewport)) continue;
    marks.push({ ref: node.ref, label: node.ref.slice(1), role: node.role, name: node.name, box });
  }
  await drawMarks(page, marks);
  try {
    return { png: await page.screenshot({ type: 'png' }), marks };
  } finally {
    await page.evaluate((id) => document.getElementById(id)?.remove(), OVERLAY_ID).catch(() => undefined);
  }
}

function* interactiveNodes(nodes: AriaNode[]): Generator<AriaNode> {
  for (const node of walkNodes(nodes)) if (isInteractive(node) && node.ref) yield node;
}

function isVisibleIn(box: Box, viewport: { width: number; height: number }): boolean {
  return (
    box.width > 0 &&
    box.height > 0 &&
    box.x < viewport.width &&
    box.y < viewport.height &&
    box.x + box.width > 0 &&
    box.y + box.height > 0
  );
}

/** A fixed overlay in a closed shadow root, so page CSS cannot restyle the marks. */
async function drawMarks(page: Page, marks: Mark[]): Promise<void> {
  await page.evaluate(
    ({ id, color, marks: list }) => {
      const host = document.createElement('div');
      host.id = id;
      host.style.cssText = 'position:fixed;inset:0;z-index:2147483647;pointer-events:none';
      const root = host.attachShadow({ mode: 'closed' });
      for (const mark of list) {
        const box = document.createElement('div');
        box.style.cssText = `position:fixed;left:${mark.box.x}px;top:${mark.box.y}px;width:${mark.box.width}px;height:${mark.box.height}px;border:2px solid ${color};box-sizing:border-box`;
        const label = document.createElement('span');
        label.textContent = mark.label;
        label.style.cssText = `position:absolute;left:-2px;top:-2px;transform:translateY(-100%);background:${color};color:#fff;font:bold 11px/13px sans-serif;padding:0 2px`;
        if (mark.box.y < 14) label.style.transform = 'none';
        box.append(label);
        root.append(box);
      }
      document.documentElement.append(host);
    },
    { id: OVERLAY_ID, color: MARK_COLOR, marks },
  );
}
