/** The longest DNS name (RFC 1035) plus the brackets of an IPv6 literal. */
const MAX_HOST_CHARS = 255;
/** A DNS name as a resolver reads it: letters, digits, `-`, `_` and dots, no empty label. */
const HOST_NAME = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?$/i;

/** Where a request wants to go, or why that cannot be read. */
export type EgressTarget = { host: string; port: number } | { problem: string };

/**
 * A port as an agent wrote it: an integer from 1 to 65535 in digits only (no sign, exponent,
 * spaces or hex), or undefined. `net.connect` throws on anything else; this is checked first.
 */
export function parsePort(text: string): number | undefined {
  if (!/^[0-9]{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65_535 ? port : undefined;
}

/** The explanation an agent gets for a port that is not one. */
export function badPortProblem(text: string): string {
  return `port "${text.slice(0, 20)}" is not a port: write an integer from 1 to 65535 in digits`;
}

/**
 * Whether `host` can be a host at all: a DNS name, an IPv4 address in any spelling, or an IPv6
 * literal in brackets. Anything else (spaces, `@`, `/`, unicode, over-long text) is a bad request.
 */
export function hostProblem(host: string): string | undefined {
  if (host.length === 0) return 'the host is empty';
  if (host.length > MAX_HOST_CHARS) return `the host is longer than ${MAX_HOST_CHARS} characters`;
  if (host.startsWith('[') && host.endsWith(']')) return undefined;
  if (HOST_NAME.test(host)) return undefined;
  return `"${host.slice(0, 60)}" is not a host name or IP address (an IPv6 address goes in brackets)`;
}

/**
 * The target of a CONNECT: `host:port` or `[ipv6]:port`, port required (RFC 9110 §9.3.6). An
 * unbracketed IPv6 address is ambiguous with its port and is refused as malformed.
 */
export function parseConnectAuthority(authority: string): EgressTarget {
  const colon = authority.lastIndexOf(':');
  if (colon < 0) return { problem: `"${authority.slice(0, 60)}" has no port: CONNECT to host:port` };
  const host = authority.slice(0, colon);
  const portText = authority.slice(colon + 1);
  const problem = hostProblem(host);
  if (problem) return { problem: `CONNECT ${authority.slice(0, 80)}: ${problem}` };
  const port = parsePort(portText);
  if (port === undefined) return { problem: badPortProblem(portText) };
  return { host, port };
}
