import ipaddr from 'ipaddr.js';

/** A parsed address: 4 or 16 bytes behind ipaddr.js's classes. */
export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * IPv6 prefixes (/96) whose last 32 bits are an IPv4 address that the IPv6 one stands for: a
 * connection to the IPv6 form ends at that IPv4 address (the kernel's dual-stack mapping, a
 * translator, or a deprecated tunnel), so the policy must judge, and the proxy dial, the IPv4 one.
 */
const IPV4_ALIASES: ReadonlyArray<[ipaddr.IPv6, string]> = [
  [ipaddr.IPv6.parse('::ffff:0:0'), 'IPv4-mapped'],
  [ipaddr.IPv6.parse('::ffff:0:0:0'), 'IPv4-translated (RFC 6145)'],
  [ipaddr.IPv6.parse('64:ff9b::'), 'NAT64 (RFC 6052)'],
  [ipaddr.IPv6.parse('::'), 'IPv4-compatible'],
];

/** The result of normalising an address as an agent (or a DNS answer) spelled it. */
export interface NormalisedAddress {
  /** What the policy judges and the proxy dials: an IPv4 alias in IPv6 clothing is unwrapped. */
  address: IpAddress;
  /** The canonical text of `address` (dotted quad, or RFC 5952 IPv6). */
  text: string;
  /** Which IPv6 form held an IPv4 address, when one was unwrapped. */
  unwrappedFrom?: string;
}

/**
 * Parse any spelling of an IP address to bytes and unwrap the IPv6 forms that are aliases of an
 * IPv4 address (`::ffff:a.b.c.d`, `::ffff:0:a.b.c.d`, `64:ff9b::a.b.c.d`, `::a.b.c.d`, in hex or
 * dotted, any case, zero-padded or not). IPv4 in the loose forms inet_aton also reads (`127.1`,
 * `0x7f.0.0.1`, `2130706433`, octal) is parsed too, so such a "name" is judged as the address a
 * resolver would make of it. Returns undefined for text that is not an address, and for an IPv6
 * zone id (`fe80::1%eth0`), which names an interface of this machine.
 *
 * Other IPv6 forms that carry an IPv4 address (6to4 `2002::/16`, Teredo `2001::/32`, NAT64
 * local-use `64:ff9b:1::/48`) are not aliases of it: they stay IPv6, and the policy refuses them as
 * the special ranges they are.
 */
export function normaliseAddress(text: string): NormalisedAddress | undefined {
  if (!ipaddr.isValid(text)) return undefined;
  let parsed: IpAddress;
  try {
    parsed = ipaddr.parse(text);
  } catch {
    return undefined;
  }
  if (parsed.kind() === 'ipv4') return { address: parsed, text: parsed.toString() };
  const v6 = parsed as ipaddr.IPv6;
  if (v6.zoneId !== undefined) return undefined;
  // `::` and `::1` sit inside ::/96 but are IPv6's own unspecified and loopback addresses.
  const range = v6.range();
  if (range === 'unspecified' || range === 'loopback') return { address: v6, text: v6.toString() };
  for (const [prefix, form] of IPV4_ALIASES) {
    if (!v6.match(prefix, 96)) continue;
    const bytes = v6.toByteArray().slice(12);
    const v4 = new ipaddr.IPv4(bytes);
    return { address: v4, text: v4.toString(), unwrappedFrom: form };
  }
  return { address: v6, text: v6.toString() };
}
