import type { BrowserTier } from '@openlegion/protocol';
import { OpenLegionError } from '@openlegion/protocol';

/** Debian's Chromium; Playwright never downloads a browser here. */
export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** Flags that work as root and inside containers (ENVIRONMENT.md): no sandbox, no GPU, no chatter. */
export const BASE_CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
] as const;

/**
 * What the `stealth` tier adds. It removes the loudest automation tells only: the
 * `navigator.webdriver` flag and the "Chrome is being controlled" switch, the "HeadlessChrome"
 * user agent, and an odd window size. It does not change TLS/HTTP2 fingerprints, canvas/WebGL/
 * audio fingerprints, fonts, the egress IP's reputation, or behaviour analysis, and solves no
 * CAPTCHA (docs/browser.md says so too).
 */
export const STEALTH_CHROMIUM_ARGS = [
  '--disable-blink-features=AutomationControlled',
  '--window-size=1366,768',
  '--lang=en-US',
] as const;

/** A proxy in Playwright's shape. */
export interface ProxySettings {
  server: string;
  username?: string;
  password?: string;
  /** Hosts that skip the proxy (Chromium always sends loopback direct). */
  bypass?: string;
}

/**
 * The egress proxy from `HTTPS_PROXY`/`HTTP_PROXY` (`http://agent:TOKEN@gateway:port` in the mesh),
 * credentials split out because Chromium takes them separately. Undefined when neither is set.
 */
export function proxyFromEnv(
  env: Record<string, string | undefined> = process.env,
): ProxySettings | undefined {
  const raw = env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy;
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch (cause) {
    throw new OpenLegionError('CONFIG_INVALID', 'HTTPS_PROXY/HTTP_PROXY is not a URL', { cause });
  }
  const proxy: ProxySettings = { server: `${url.protocol}//${url.host}` };
  if (url.username) proxy.username = decodeURIComponent(url.username);
  if (url.password) proxy.password = decodeURIComponent(url.password);
  const noProxy = env.NO_PROXY ?? env.no_proxy;
  if (noProxy) proxy.bypass = noProxy;
  return proxy;
}

/** Chromium's command line for a tier (local tiers only; `cdp` launches nothing). */
export function chromiumArgs(tier: BrowserTier, extraArgs: readonly string[] = []): string[] {
  const args: string[] = [...BASE_CHROMIUM_ARGS];
  if (tier === 'stealth') args.push(...STEALTH_CHROMIUM_ARGS);
  return [...args, ...extraArgs];
}

/** A desktop Chrome user agent for the stealth tier, built from the real version (no "Headless"). */
export function stealthUserAgent(browserVersion: string): string {
  const major = browserVersion.split('.')[0] ?? '130';
  return `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
}
