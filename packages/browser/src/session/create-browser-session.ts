import type { Clock } from '@openlegion/infra/clock';
import type { AgentSelf, BrowserTier } from '@openlegion/protocol';
import { createPlaywrightLauncher } from './browser-launcher.js';
import { BrowserSession } from './browser-session.js';
import { type ProxySettings, proxyFromEnv } from './launch-options.js';

/** Everything about an agent's browser; only `profileDir` has no default. */
export interface BrowserConfig {
  tier?: BrowserTier;
  /** Tier `cdp`: the remote browser's endpoint. */
  cdpUrl?: string;
  /** Persistent profile directory (`/data/browser` in the agent). */
  profileDir: string;
  /** Default `/usr/bin/chromium`. */
  executablePath?: string;
  /** The egress proxy; `undefined` reads HTTPS_PROXY/HTTP_PROXY, `null` means none. */
  proxy?: ProxySettings | null;
  idleTimeoutMs?: number;
  headless?: boolean;
  extraArgs?: readonly string[];
  viewport?: { width: number; height: number };
  navigationTimeoutMs?: number;
  actionTimeoutMs?: number;
  clock?: Clock;
}

/** A session on Playwright and the system Chromium (or a CDP endpoint). Launches nothing yet. */
export function createBrowserSession(config: BrowserConfig): BrowserSession {
  const proxy = config.proxy === undefined ? proxyFromEnv() : (config.proxy ?? undefined);
  const tier = config.tier ?? 'basic';
  const launcher = createPlaywrightLauncher({
    tier,
    profileDir: config.profileDir,
    ...(config.cdpUrl !== undefined ? { cdpUrl: config.cdpUrl } : {}),
    ...(config.executablePath !== undefined ? { executablePath: config.executablePath } : {}),
    ...(proxy ? { proxy } : {}),
    ...(config.headless !== undefined ? { headless: config.headless } : {}),
    ...(config.extraArgs !== undefined ? { extraArgs: config.extraArgs } : {}),
    ...(config.viewport !== undefined ? { viewport: config.viewport } : {}),
  });
  return new BrowserSession({
    launcher,
    // A remote (cdp) browser has its own network; our proxy settings do not reach it.
    proxied: proxy !== undefined && tier !== 'cdp',
    ...(proxy && tier !== 'cdp' ? { proxy } : {}),
    ...(config.idleTimeoutMs !== undefined ? { idleTimeoutMs: config.idleTimeoutMs } : {}),
    ...(config.navigationTimeoutMs !== undefined ? { navigationTimeoutMs: config.navigationTimeoutMs } : {}),
    ...(config.actionTimeoutMs !== undefined ? { actionTimeoutMs: config.actionTimeoutMs } : {}),
    ...(config.clock !== undefined ? { clock: config.clock } : {}),
  });
}

/** The agent's browser config from `/mesh/self` and its environment (the egress proxy). */
export function browserConfigFromSelf(
  browser: AgentSelf['browser'],
  options: { profileDir?: string; env?: Record<string, string | undefined> } = {},
): BrowserConfig {
  const proxy = proxyFromEnv(options.env ?? process.env);
  return {
    tier: browser.tier,
    ...(browser.cdp_url !== undefined ? { cdpUrl: browser.cdp_url } : {}),
    profileDir: options.profileDir ?? '/data/browser',
    proxy: proxy ?? null,
    idleTimeoutMs: browser.idle_timeout_ms,
  };
}
