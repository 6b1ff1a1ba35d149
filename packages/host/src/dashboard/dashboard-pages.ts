import type { OpenLegionError } from '@openlegion/protocol';

/**
 * The dashboard's Content-Security-Policy: scripts and styles only from the host's own built files
 * (no inline script, no eval), data only from the host, never framed. Chart lines are drawn on a
 * canvas, and Preact sets styles through the CSSOM, which a style-src policy does not block.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every dashboard answer (pages, files, refusals). */
export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * A refusal as a page a person reads (a browser navigating to /ui from a forged Host, or from the
 * gateway address): what happened and what to do, no script, styled by nothing but the browser.
 */
export function refusalPage(error: OpenLegionError): string {
  const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>OpenLegion dashboard: refused</title></head>
<body><main><h1>The dashboard refused this request</h1>
<p><strong>${escapeHtml(error.code)}</strong>: ${escapeHtml(error.message)}</p>
<p>See docs/dashboard.md in OpenLegion for how to open the dashboard.</p></main></body></html>
`;
}

/** The page shown when the host was started without the dashboard built. */
export const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>OpenLegion dashboard: not built</title></head>
<body><main><h1>The dashboard was not built</h1>
<p>Run <code>pnpm build</code> in the OpenLegion checkout, then restart the host.</p></main></body></html>
`;
