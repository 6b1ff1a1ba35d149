import type { AgentTool } from '@openlegion/protocol';
import type { BrowserSession } from '../session/browser-session.js';
import { elementTools } from './element-tools.js';
import { navigationTools } from './navigation-tools.js';
import { pageTools } from './page-tools.js';
import { screenshotTool } from './screenshot-tool.js';
import { DEFAULT_SNAPSHOT_MAX_CHARS, snapshotTool } from './snapshot-tool.js';

/** What {@link createBrowserTools} needs. */
export interface BrowserToolsOptions {
  session: BrowserSession;
  /** Offer `browser_evaluate` (mesh.yaml `browser.evaluate`). Default false. */
  evaluate?: boolean;
  /** Character cap of a snapshot unless the call asks otherwise. */
  snapshotMaxChars?: number;
}

/**
 * The agent's browser tools (group `browser`), all on one session. Nothing starts until the
 * first call: an idle agent runs no Chromium.
 *
 * @example
 * const session = createBrowserSession(browserConfigFromSelf(self.browser));
 * const tools = createBrowserTools({ session, evaluate: self.browser.evaluate });
 * // … at shutdown: await session.close();
 */
export function createBrowserTools(options: BrowserToolsOptions): AgentTool[] {
  const { session } = options;
  return [
    ...navigationTools(session),
    snapshotTool(session, options.snapshotMaxChars ?? DEFAULT_SNAPSHOT_MAX_CHARS),
    ...elementTools(session),
    screenshotTool(session),
    ...pageTools(session, options.evaluate ?? false),
  ];
}
