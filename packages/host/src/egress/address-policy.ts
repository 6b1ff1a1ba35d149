import ipaddr from 'ipaddr.js';
import type { IpAddress } from './normalise-address.js';

/**
 * Addresses an agent never reaches through the proxy unless a CIDR in its egress list names them:
 * loopback, private, link-local (cloud metadata lives there), CGNAT, multicast, reserved — and the
 * same in IPv6. The table comes first for its precise reasons; after it, every range ipaddr.js
 * knows as special (anything its `range()` does not call `unicast`) is refused under its name.
 * Addresses reach this check normalised (see normaliseAddress), so an IPv4 address spelled in
 * IPv6 is judged as the IPv4 address it is.
 */
const REFUSED: ReadonlyArray<[string, string]> = [
  ['0.0.0.0/8', 'this-network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata)'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fc00::/7', 'unique local (private)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (private)'],
  ['ff00::/8', 'multicast'],
  ['64:ff9b:1::/48', 'local-use NAT64 (embeds an IPv4 address)'],
  ['2002::/16', '6to4 (embeds an IPv4 address)'],
  ['2001::/32', 'Teredo (embeds an IPv4 address)'],
];

const REFUSED_RANGES = REFUSED.map(([cidr, reason]) => ({ range: ipaddr.parseCIDR(cidr), reason }));

/** Why `address` is refused, or undefined when it is a public (unicast) address. */
export function refusedBecause(address: IpAddress): string | undefined {
  for (const { range, reason } of REFUSED_RANGES) {
    if (range[0].kind() === address.kind() && address.match(range)) return reason;
  }
  const special = address.range();
  return special === 'unicast' ? undefined : `reserved (${special})`;
}

/** The CIDRs of an egress allowlist (`10.1.0.0/16`, `fd00::/8`), parsed; other patterns are skipped. */
export function listedCidrs(patterns: readonly string[]): ReadonlyArray<[IpAddress, number]> {
  const ranges: Array<[IpAddress, number]> = [];
  for (const pattern of patterns) {
    if (!pattern.includes('/') || !ipaddr.isValidCIDR(pattern)) continue;
    try {
      ranges.push(ipaddr.parseCIDR(pattern));
    } catch {
      // Not a CIDR after all: it never names an address.
    }
  }
  return ranges;
}

/** Whether a CIDR of the allowlist names `address` (then even a private address may be reached). */
export function inListedCidr(ranges: ReadonlyArray<[IpAddress, number]>, address: IpAddress): boolean {
  return ranges.some((range) => range[0].kind() === address.kind() && address.match(range));
}
