import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { type BrowserTier, isOpenLegionError, OpenLegionError } from '@openlegion/protocol';
import type { BrowserContext, BrowserContextOptions } from 'playwright-core';
import { chromiumArgs, type ProxySettings, SYSTEM_CHROMIUM, stealthUserAgent } from './launch-options.js';

/** A running browser: its one context, and how to let it go. */
export interface LaunchedBrowser {
  context: BrowserContext;
  /** Closes a browser we launched; only disconnects from a remote (CDP) one. */
  close(): Promise<void>;
}

/** Starts (or connects to) a browser. The session calls it lazily, and again after a crash. */
export type BrowserLauncher = () => Promise<LaunchedBrowser>;

/** How {@link createPlaywrightLauncher} starts Chromium. */
export interface PlaywrightLauncherOptions {
  tier: BrowserTier;
  /** Tier `cdp`: the remote browser's endpoint (`ws://…` or `http://…`). */
  cdpUrl?: string;
  /** Persistent profile (cookies, storage) for local tiers; `/data/browser` in the agent. */
  profileDir: string;
  executablePath?: string;
  proxy?: ProxySettings;
  headless?: boolean;
  /** More Chromium flags (tests pass `--host-resolver-rules` so no name resolves). */
  extraArgs?: readonly string[];
  viewport?: { width: number; height: number };
}

const LAUNCH_TIMEOUT_MS = 30_000;

/** Playwright driving the system Chromium (basic, stealth) or a remote browser over CDP (cdp). */
export function createPlaywrightLauncher(options: PlaywrightLauncherOptions): BrowserLauncher {
  return async () => {
    try {
      return options.tier === 'cdp' ? await connectOverCdp(options) : await launchLocal(options);
    } catch (cause) {
      if (isOpenLegionError(cause)) throw cause;
      const reason = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
      throw new OpenLegionError('BROWSER_LAUNCH_FAILED', `the browser did not start: ${reason}`, { cause });
    }
  };
}

/**
 * Playwright, loaded at the first launch: importing it costs about half a second of CPU, which an
 * agent that never browses (and a fleet starting at once) should not pay at boot.
 */
async function loadChromium() {
  return (await import('playwright-core')).chromium;
}

async function launchLocal(options: PlaywrightLauncherOptions): Promise<LaunchedBrowser> {
  const chromium = await loadChromium();
  const executablePath = options.executablePath ?? SYSTEM_CHROMIUM;
  await mkdir(options.profileDir, { recursive: true });
  const contextOptions: BrowserContextOptions = {
    acceptDownloads: true,
    viewport: options.viewport ?? { width: 1280, height: 720 },
    ...(options.proxy ? { proxy: options.proxy } : {}),
  };
  if (options.tier === 'stealth') {
    contextOptions.userAgent = stealthUserAgent(await chromiumVersion(executablePath));
    contextOptions.locale = 'en-US';
  }
  const context = await chromium.launchPersistentContext(options.profileDir, {
    ...contextOptions,
    executablePath,
    headless: options.headless ?? true,
    args: chromiumArgs(options.tier, options.extraArgs),
    // Playwright's own --enable-automation shows the automation infobar and sets navigator.webdriver.
    ...(options.tier === 'stealth' ? { ignoreDefaultArgs: ['--enable-automation'] } : {}),
    timeout: LAUNCH_TIMEOUT_MS,
  });
  return { context, close: () => context.close() };
}

async function connectOverCdp(options: PlaywrightLauncherOptions): Promise<LaunchedBrowser> {
  if (!options.cdpUrl) {
    throw new OpenLegionError('CONFIG_INVALID', 'browser tier cdp needs browser.cdp_url');
  }
  const chromium = await loadChromium();
  const browser = await chromium.connectOverCDP(options.cdpUrl, { timeout: LAUNCH_TIMEOUT_MS });
  const context = browser.contexts()[0] ?? (await browser.newContext({ acceptDownloads: true }));
  return { context, close: () => browser.close() };
}

async function chromiumVersion(executablePath: string): Promise<string> {
  const { stdout } = await promisify(execFile)(executablePath, ['--version'], { timeout: 10_000 });
  return /(\d+\.\d+\.\d+\.\d+)/.exec(stdout)?.[1] ?? '130.0.0.0';
}
