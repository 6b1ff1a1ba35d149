import type { AgentTool } from '@openlegion/protocol';
import { z } from 'zod';
import type { BrowserSession } from '../session/browser-session.js';
import { takeSnapshot } from '../snapshot/take-snapshot.js';
import { browserTool } from './browser-tool.js';

/** Default character cap of a snapshot (~10k tokens). */
export const DEFAULT_SNAPSHOT_MAX_CHARS = 40_000;

const snapshotInput = z.object({
  interactive_only: z.boolean().default(false).describe('Only elements you can act on, as a flat list'),
  compact: z
    .boolean()
    .default(true)
    .describe(
      'Fold unnamed structure (wrappers, lists, paragraphs) away; false shows the full tree with every ref',
    ),
  max_depth: z.number().int().min(1).max(100).optional().describe('Print only this many levels'),
  root: z
    .string()
    .optional()
    .describe('Only this element: a ref (e.g. a main or form ref) or a CSS selector'),
  frame: z.string().optional().describe('Only this iframe: its ref or a CSS selector of the <iframe>'),
  urls: z.boolean().default(false).describe('Show link targets'),
  max_chars: z.number().int().min(1_000).max(400_000).optional().describe('Character cap of the result'),
});

/** browser_snapshot. */
export function snapshotTool(session: BrowserSession, defaultMaxChars: number): AgentTool {
  return browserTool(session, {
    name: 'browser_snapshot',
    description:
      "The active tab's accessibility tree: roles, names and text, each element you can act on with a ref " +
      '(e.g. [e12]); [new] marks what appeared since your previous snapshot. Call it after every navigation, ' +
      'then act by ref. Refs stay valid until the page navigates.',
    input: snapshotInput,
    run: async (input) => {
      const tab = await session.activeTab();
      const snapshot = await takeSnapshot(tab, session.refs, {
        compact: input.compact,
        interactiveOnly: input.interactive_only,
        urls: input.urls,
        maxChars: input.max_chars ?? defaultMaxChars,
        ...(input.max_depth !== undefined ? { maxDepth: input.max_depth } : {}),
        ...(input.root !== undefined ? { root: input.root } : {}),
        ...(input.frame !== undefined ? { frame: input.frame } : {}),
      });
      return snapshot.text;
    },
  }) as AgentTool;
}
