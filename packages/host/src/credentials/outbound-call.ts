import { OpenLegionError } from '@openlegion/protocol';
import type { RequestPlace } from './credential-grants.js';

/**
 * Replaces each `$CRED{NAME}` in `text`, found at `place`, by the credential's value passed through
 * `encode`; throws when the credential may not go there.
 */
export type CredentialFill = (
  text: string,
  place: RequestPlace,
  encode?: (value: string) => string,
) => string;

/** What the agent asked for, as `/mesh/http` parsed it. */
export interface AgentCall {
  url: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  body?: unknown;
}

/** A request ready to send: credentials filled in, headers lower-cased and checked. */
export interface OutboundCall {
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
}

/**
 * Headers the host sets itself: `host` (it comes from the url, and decides TLS's server name) and the
 * hop-by-hop ones that shape the connection, plus `content-length`, which the host computes.
 */
const HOST_SET_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const CREDENTIAL_IN_PATH = /\$CRED(?:\{|%7[bB])([A-Za-z_][A-Za-z0-9_]*)(?:\}|%7[dD])/g;
/** Characters a path segment may hold as they are (RFC 3986 pchar less "%"); the rest is percent-encoded. */
const PATH_SAFE = /%(3A|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/g;

/**
 * The request to send for `call`: every place a credential could hide is passed to `fill` under its
 * name (`header:authorization`, `query:token`, `body`, `path`, or `url host` and `query name`,
 * which no grant can name), and agent-set transport headers are refused with 400 REQUEST_INVALID.
 */
export function buildOutboundCall(call: AgentCall, fill: CredentialFill): OutboundCall {
  const url = new URL(call.url);
  // The authority is checked as written: the parser lower-cases the host name, so `$CRED{X}` in it
  // would no longer look like a placeholder.
  fill(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(call.url)?.[1] ?? '', 'url host');
  url.pathname = url.pathname.replace(CREDENTIAL_IN_PATH, (_match, name: string) =>
    fill(`$CRED{${name}}`, 'path', encodePathSegment),
  );
  if ([...url.searchParams].some(([key, value]) => `${key}${value}`.includes('$CRED{'))) {
    const params = [...url.searchParams];
    url.search = '';
    for (const [key, value] of params)
      url.searchParams.append(fill(key, 'query name'), fill(value, `query:${key}`));
  }
  for (const [key, value] of Object.entries(call.query))
    url.searchParams.set(fill(key, 'query name'), fill(value, `query:${key}`));
  const headers = Object.fromEntries(
    [...checkedHeaders(call.headers)].map(([name, value]) => [name, fill(value, `header:${name}`)]),
  );
  const body =
    call.body === undefined
      ? undefined
      : typeof call.body === 'string'
        ? fill(call.body, 'body')
        : // Inside JSON the value goes in escaped, so a quote in a secret cannot break the document.
          fill(JSON.stringify(call.body), 'body', (value) => JSON.stringify(value).slice(1, -1));
  if (body !== undefined && typeof call.body !== 'string' && !headers['content-type'])
    headers['content-type'] = 'application/json';
  return { url, headers, body };
}

/** The agent's headers, names lower-cased; throws 400 naming a header the agent may not set. */
function checkedHeaders(given: Record<string, string>): Map<string, string> {
  // A Map, so a header named like an object property (`__proto__`, `constructor`) is just a header.
  const headers = new Map<string, string>();
  for (const [givenName, value] of Object.entries(given)) {
    const name = givenName.toLowerCase();
    const refuse = (message: string) => {
      throw new OpenLegionError('REQUEST_INVALID', `headers.${givenName}: ${message}`, {
        details: { field: 'headers', header: givenName },
      });
    };
    if (!HEADER_NAME.test(name)) refuse('not a valid header name');
    if (name === 'host')
      refuse('the host sets Host from the url (TLS checks that name too); put the host in the url');
    if (HOST_SET_HEADERS.has(name) || name.startsWith('proxy-'))
      refuse(`the host sets ${name} itself (it belongs to the connection, not the request); remove it`);
    if (headers.has(name)) refuse(`the header is given twice (header names ignore case); send it once`);
    if (/[\r\n\0]/.test(value)) refuse('a header value may not hold a line break or NUL');
    headers.set(name, value);
  }
  return headers;
}

function encodePathSegment(value: string): string {
  return encodeURIComponent(value).replace(PATH_SAFE, (escaped) => decodeURIComponent(escaped));
}
