import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { normaliseAddress, refusedBecause } from '../egress/index.js';

/**
 * Kinds of address a remote MCP server's URL may lead to although the egress proxy refuses them
 * for agents: the operator wrote the URL in mesh.yaml, and MCP servers often run on the operator's
 * own machine or LAN. Everything else the egress policy refuses (link-local with the cloud metadata
 * service, this-network, multicast, reserved, the IPv6 forms embedding an IPv4 address) stays
 * refused, so a DNS answer that changes under the host cannot send the server's credential there.
 */
const OPERATOR_REACHABLE = new Set([
  'loopback',
  'private',
  'unique local (private)',
  'site-local (private)',
  'carrier-grade NAT',
]);

/** Why the host will not connect to `address` for an MCP server, or undefined when it may. */
export function mcpAddressRefusal(address: string): string | undefined {
  const parsed = normaliseAddress(address);
  if (!parsed) return `${address.slice(0, 60)} is not an IP address`;
  const why = refusedBecause(parsed.address);
  if (why === undefined || OPERATOR_REACHABLE.has(why)) return undefined;
  return `${parsed.text} is a ${why} address`;
}

/**
 * The `lookup` the host's connections to MCP servers use: the system resolver, then every answer
 * judged by {@link mcpAddressRefusal}, so the address judged is the address dialled. A literal
 * address in the URL never reaches a lookup; the caller checks it before the request.
 */
export const guardedLookup: LookupFunction = (host, options, callback) => {
  dnsLookup(host, { ...options, all: true }, (error, answers: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = answers.map((answer) => mcpAddressRefusal(answer.address)).find(Boolean);
    const first = answers[0];
    if (refused || !first) {
      const reason = refused ?? 'no address';
      const failure: NodeJS.ErrnoException = new Error(`${host} resolves to ${reason}; not connecting`);
      failure.code = 'EMCPADDRESS';
      return callback(failure, '', 0);
    }
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, answers);
    callback(null, first.address, first.family);
  });
};
