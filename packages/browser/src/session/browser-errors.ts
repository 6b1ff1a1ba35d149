import { isOpenLegionError, OpenLegionError } from '@openlegion/protocol';

/** Chromium's refusal when the egress proxy answers a CONNECT with 403 (or is unreachable). */
const PROXY_REFUSALS = ['net::ERR_TUNNEL_CONNECTION_FAILED', 'net::ERR_PROXY_CONNECTION_FAILED'];

/** Whether an error means the browser (or its context) went away under us. */
export function isBrowserGone(error: unknown): boolean {
  return (
    error instanceof Error &&
    /Target page, context or browser has been closed|Browser has been closed|browser has disconnected|Target crashed/i.test(
      error.message,
    )
  );
}

/** A navigation failure as a stable error that names the URL. */
export function navigationError(
  error: unknown,
  url: string,
  timeoutMs: number,
  proxied: boolean,
): OpenLegionError {
  if (isOpenLegionError(error)) return error;
  // By name, not instanceof: playwright-core is loaded lazily, and only at the first launch.
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new OpenLegionError('BROWSER_TIMEOUT', `${url} did not load within ${timeoutMs} ms`, {
      cause: error,
      details: { url, timeoutMs },
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  const netError = /net::ERR_[A-Z_]+/.exec(message)?.[0];
  if (proxied && netError && PROXY_REFUSALS.includes(netError)) {
    return egressRefused(url, `the egress proxy refused the connection (${netError})`, error);
  }
  return new OpenLegionError(
    'BROWSER_NAVIGATION_FAILED',
    `${url} could not be loaded: ${netError ?? firstLine(message)}`,
    { cause: error, details: { url } },
  );
}

/** The egress proxy said no. */
export function egressRefused(url: string, reason: string, cause?: unknown): OpenLegionError {
  return new OpenLegionError(
    'BROWSER_EGRESS_REFUSED',
    `${url} is not reachable: ${reason}. Only hosts on this agent's egress allowlist can be opened`,
    { cause, details: { url } },
  );
}

/** An action on an element that failed, named by the element: `what` reads "click e4 (button …)". */
export function actionError(error: unknown, what: string, timeoutMs: number): OpenLegionError {
  if (isOpenLegionError(error)) return error;
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new OpenLegionError('BROWSER_TIMEOUT', `could not ${what} within ${timeoutMs} ms`, {
      cause: error,
    });
  }
  const message = error instanceof Error ? firstLine(error.message) : String(error);
  return new OpenLegionError('BROWSER_ACTION_FAILED', `could not ${what}: ${message}`, { cause: error });
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? text).replace(/^(?:[a-zA-Z.]+: )+/, '');
}
