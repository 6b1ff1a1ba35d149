/**
 * How the host's egress proxy explains an answer it gives itself (a refusal, a malformed request,
 * a failed upstream) so that every client can show it. A body alone is not enough: HTTP clients
 * drop the body of a failed CONNECT (undici's ProxyAgent, Chromium), so the reason also rides in a
 * header, which they do read.
 */

/** `refused` on the proxy's 403, so a client tells it from a site's own 403. */
export const EGRESS_REFUSED_HEADER = 'x-openlegion-egress';

/** The proxy's own answer in one line (`egress refused: ...`), printable ASCII. */
export const EGRESS_REASON_HEADER = 'x-openlegion-egress-reason';

/** A header value can hold no line break or non-ASCII character; a reason longer than this is cut. */
const MAX_REASON_HEADER_CHARS = 1_000;

/** `text` as a header value: one line, printable ASCII (anything else becomes `?`), bounded. */
export function egressReasonHeaderValue(text: string): string {
  return text
    .trim()
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, MAX_REASON_HEADER_CHARS);
}
