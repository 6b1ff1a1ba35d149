import { BlockList } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EgressPolicy } from './egress-policy.js';

/**
 * The refused IPv4 set, written out independently of the code under test: the policy's own table
 * plus the special ranges ipaddr.js knows (documentation, 6to4 relay, AS112, AMT, broadcast).
 */
const REFUSED_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.31.196.0/24',
  '192.52.193.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '192.175.48.0/24',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
];
/** The refused IPv6 set (the forms that are IPv4 aliases are judged as IPv4 instead). */
const REFUSED_V6 = [
  '::/128',
  '::1/128',
  '100::/64',
  '2001::/23',
  '2001:db8::/32',
  '2002::/16',
  '2620:4f:8000::/48',
  '3fff::/20',
  '5f00::/16',
  '64:ff9b:1::/48',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
];

function blockList(cidrs: readonly string[], family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [network = '', prefix = ''] = cidr.split('/');
    list.addSubnet(network, Number(prefix), family);
  }
  return list;
}
const v4Oracle = blockList(REFUSED_V4, 'ipv4');
const v6Oracle = blockList(REFUSED_V6, 'ipv6');

/** An agent that may reach anything on 443 by name (`*`), so only the address policy decides. */
const policy = new EgressPolicy({
  allowlist: () => ['*'],
  ports: () => [443],
  resolve: async (host) => {
    throw new Error(`a literal address was resolved as a name: ${host}`);
  },
});

const hex = (group: number) => group.toString(16);
const padded = (group: number) => group.toString(16).padStart(4, '0').toUpperCase();

/** The IPv6 spellings of IPv4 bytes that stand for that IPv4 address. */
function spellings([a, b, c, d]: number[]): string[] {
  const dotted = `${a}.${b}.${c}.${d}`;
  const high = ((a ?? 0) << 8) | (b ?? 0);
  const low = ((c ?? 0) << 8) | (d ?? 0);
  const pair = `${hex(high)}:${hex(low)}`;
  const paddedPair = `${padded(high)}:${padded(low)}`;
  return [
    `::ffff:${dotted}`,
    `::ffff:${pair}`,
    `0:0:0:0:0:ffff:${pair}`,
    `0000:0000:0000:0000:0000:FFFF:${paddedPair}`,
    `0:0::ffff:${dotted}`,
    `::FFFF:${paddedPair}`,
    `::ffff:0:${dotted}`,
    `0:0:0:0:ffff:0:${pair}`,
    `64:ff9b::${dotted}`,
    `64:ff9b::${pair}`,
    `0064:FF9B:0000:0000:0000:0000:${paddedPair}`,
    `::${dotted}`,
    `::${pair}`,
    `0:0:0:0:0:0:${paddedPair}`,
  ];
}

/** IPv4 bytes with the first two octets drawn often from the refused ranges. */
const ipv4 = fc.tuple(
  fc.oneof(fc.constantFrom(0, 10, 100, 127, 169, 172, 192, 198, 203, 224, 240, 255), fc.nat(255)),
  fc.oneof(fc.constantFrom(0, 2, 18, 19, 31, 51, 52, 64, 88, 168, 175, 254, 255), fc.nat(255)),
  fc.oneof(fc.constantFrom(0, 2, 99, 100, 113, 193, 196, 48), fc.nat(255)),
  fc.nat(255),
);

/** IPv6 groups with the first group drawn often from special prefixes. */
const ipv6 = fc.tuple(
  fc.oneof(
    fc.constantFrom(
      0,
      0x64,
      0x100,
      0x2001,
      0x2002,
      0x2606,
      0x2620,
      0x3fff,
      0x5f00,
      0xfc00,
      0xfe80,
      0xfec0,
      0xff02,
    ),
    fc.nat(0xffff),
  ),
  fc.oneof(fc.constantFrom(0, 1, 0xdb8, 0xff9b, 0x4f), fc.nat(0xffff)),
  ...Array.from({ length: 6 }, () => fc.oneof(fc.constant(0), fc.nat(0xffff))),
);

/** What the oracle says about IPv6 groups: IPv4 aliases by the IPv4 inside, the rest as IPv6. */
function refusedByOracle(groups: number[]): boolean {
  const zero = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const [g0, g1, , , g4, g5, g6 = 0, g7 = 0] = groups;
  const embedded = [g6 >> 8, g6 & 255, g7 >> 8, g7 & 255].join('.');
  const aliasOfIpv4 =
    (zero(0, 5) && g5 === 0xffff) ||
    (zero(0, 4) && g4 === 0xffff && g5 === 0) ||
    (g0 === 0x64 && g1 === 0xff9b && zero(2, 6)) ||
    zero(0, 6);
  if (aliasOfIpv4) return v4Oracle.check(embedded, 'ipv4');
  return v6Oracle.check(groups.map(hex).join(':'), 'ipv6');
}

describe('EgressPolicy address normalisation (against net.BlockList)', () => {
  it('judges an IPv4 address in every IPv6 spelling as the IPv4 address, and dials the IPv4 address', async () => {
    await fc.assert(
      fc.asyncProperty(ipv4, fc.nat(13), async (bytes, which) => {
        const dotted = bytes.join('.');
        const spelling = spellings(bytes)[which] ?? '';
        const refused = v4Oracle.check(dotted, 'ipv4');
        const decision = await policy.decide('wild', `[${spelling}]`, 443);
        expect(decision.allowed, `${spelling} = ${dotted}`).toBe(!refused);
        if (decision.allowed) expect(decision.address).toBe(dotted);
        else expect(decision.reason).toContain(`(${dotted}) is a `);
      }),
      { numRuns: 3_000 },
    );
  });

  it('judges IPv4 in dotted, decimal, hex and octal forms as the address a resolver would read', async () => {
    await fc.assert(
      fc.asyncProperty(ipv4, fc.nat(3), async (bytes, which) => {
        const dotted = bytes.join('.');
        const value = bytes.reduce((sum, byte) => sum * 256 + byte, 0);
        const forms = [
          dotted,
          String(value),
          `0x${value.toString(16)}`,
          bytes.map((byte) => `0${byte.toString(8)}`).join('.'),
        ];
        const decision = await policy.decide('wild', forms[which] ?? dotted, 443);
        expect(decision.allowed, `${forms[which]} = ${dotted}`).toBe(!v4Oracle.check(dotted, 'ipv4'));
        if (decision.allowed) expect(decision.address).toBe(dotted);
      }),
      { numRuns: 2_000 },
    );
  });

  it('judges random IPv6 addresses as the oracle does, in any case and padding', async () => {
    await fc.assert(
      fc.asyncProperty(ipv6, fc.nat(2), async (groups, which) => {
        const full = groups.map(hex).join(':');
        const forms = [
          full,
          groups.map(padded).join(':'),
          new URL(`http://[${full}]/`).hostname.slice(1, -1),
        ];
        const decision = await policy.decide('wild', `[${forms[which] ?? full}]`, 443);
        expect(decision.allowed, full).toBe(!refusedByOracle(groups));
      }),
      { numRuns: 3_000 },
    );
  });

  it('dials a public IPv6 address in its canonical spelling', async () => {
    const decision = await policy.decide('wild', '[2606:4700:0000:0000:0000:0000:0000:1111]', 443);
    expect(decision).toMatchObject({ allowed: true, address: '2606:4700::1111', host: '2606:4700::1111' });
  });
});

describe('EgressPolicy ports and hosts', () => {
  it('answers a port that is not one as a bad request, before any name is resolved', async () => {
    for (const port of [0, -1, 65_536, 1.5, Number.NaN]) {
      expect(await policy.decide('wild', 'example.test', port)).toMatchObject({
        allowed: false,
        invalid: true,
        reason: `port "${port}" is not a port: write an integer from 1 to 65535 in digits`,
      });
    }
  });

  it('refuses a port outside egress_ports, naming it and the field', async () => {
    expect(await policy.decide('wild', 'example.test', 22)).toEqual({
      agent: 'wild',
      host: 'example.test',
      port: 22,
      allowed: false,
      reason:
        'port 22 is not in agents.wild.permissions.egress_ports (allowed: 443); add it there in mesh.yaml to allow it',
    });
  });

  it('refuses a DNS answer that is an IPv4 alias of a refused address, and dials the normalised one', async () => {
    const answers: Record<string, string[]> = {
      'mapped.test': ['::ffff:7f00:1'],
      'nat64.test': ['64:ff9b::a9fe:a9fe'],
      'public.test': ['::ffff:5db8:d822'],
    };
    const byDns = new EgressPolicy({
      allowlist: () => ['*.test'],
      ports: () => [443],
      resolve: async (host) => answers[host] ?? [],
    });
    expect((await byDns.decide('a', 'mapped.test', 443)).reason).toBe(
      'mapped.test resolves to 127.0.0.1, a loopback address',
    );
    expect((await byDns.decide('a', 'nat64.test', 443)).reason).toBe(
      'nat64.test resolves to 169.254.169.254, a link-local (cloud metadata) address',
    );
    expect(await byDns.decide('a', 'public.test', 443)).toMatchObject({
      allowed: true,
      address: '93.184.216.34',
    });
  });

  it('matches a literal allowlist entry in any spelling against the normalised host', async () => {
    const listed = new EgressPolicy({
      allowlist: () => ['::FFFF:5DB8:D822'],
      ports: () => [443],
      resolve: async () => [],
    });
    expect(await listed.decide('a', '93.184.216.34', 443)).toMatchObject({ allowed: true });
    expect(await listed.decide('a', '[0:0:0:0:0:ffff:5db8:d822]', 443)).toMatchObject({
      allowed: true,
      address: '93.184.216.34',
    });
    expect(await listed.decide('a', '93.184.216.35', 443)).toMatchObject({ allowed: false });
  });
});
