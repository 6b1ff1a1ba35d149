import { BlockList, isIP } from 'node:net';

/**
 * Addresses an agent never reaches through the proxy unless a CIDR in its egress list names them:
 * loopback, private, link-local (cloud metadata lives there), CGNAT, multicast, reserved — and the
 * same in IPv6, including IPv4 addresses hidden in IPv6 forms (mapped, NAT64).
 */
const REFUSED: Array<[string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', 'this-network'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'reserved'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['fc00::', 7, 'ipv6', 'unique local (private)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

/** The IPv4 address inside an IPv6 one (`::ffff:a.b.c.d`, `64:ff9b::a.b.c.d`, `::a.b.c.d`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const dotted = /^(?:::ffff:|64:ff9b::|::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1] ?? '0', 16);
  const low = Number.parseInt(hex[2] ?? '0', 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Why `address` is refused, or undefined when it is a public address. */
export function refusedBecause(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const inner = family === 6 ? embeddedIpv4(address) : undefined;
  if (inner !== undefined) return refusedBecause(inner);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [network, prefix, kind, reason] of REFUSED) {
    if (kind !== type) continue;
    const list = new BlockList();
    list.addSubnet(network, prefix, kind);
    if (list.check(address, type)) return reason;
  }
  return undefined;
}

/** The CIDRs (`10.1.0.0/16`, `fd00::/8`) listed in an egress allowlist, as one block list. */
export function listedCidrs(patterns: readonly string[]): BlockList {
  const list = new BlockList();
  for (const pattern of patterns) {
    const match = /^([0-9a-f.:]+)\/(\d{1,3})$/i.exec(pattern);
    const family = match ? isIP(match[1] ?? '') : 0;
    if (!match || family === 0) continue;
    list.addSubnet(match[1] ?? '', Number(match[2]), family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** Whether a CIDR of the allowlist names `address` (then even a private address may be reached). */
export function inListedCidr(list: BlockList, address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const inner = family === 6 ? embeddedIpv4(address) : undefined;
  if (inner !== undefined) return list.check(inner, 'ipv4');
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
