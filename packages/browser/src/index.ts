export { labeledScreenshot, MARK_COLOR, type Mark } from './screenshot/labeled-screenshot.js';
export {
  type BrowserLauncher,
  createPlaywrightLauncher,
  type LaunchedBrowser,
} from './session/browser-launcher.js';
export { BrowserSession, type BrowserSessionOptions, type Tab } from './session/browser-session.js';
export {
  type BrowserConfig,
  browserConfigFromSelf,
  createBrowserSession,
} from './session/create-browser-session.js';
export {
  BASE_CHROMIUM_ARGS,
  type ProxySettings,
  proxyFromEnv,
  STEALTH_CHROMIUM_ARGS,
  SYSTEM_CHROMIUM,
} from './session/launch-options.js';
export { type AriaNode, INTERACTIVE_ROLES, isInteractive } from './snapshot/aria-node.js';
export { RefRegistry } from './snapshot/ref-registry.js';
export { type Snapshot, type SnapshotRequest, takeSnapshot } from './snapshot/take-snapshot.js';
export { type BrowserToolsOptions, createBrowserTools } from './tools/create-browser-tools.js';
export { DEFAULT_SNAPSHOT_MAX_CHARS } from './tools/snapshot-tool.js';
