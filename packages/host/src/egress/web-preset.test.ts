import { BlockList } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMeshConfig } from '../config/index.js';
import { EgressPolicy, type Resolver } from './egress-policy.js';

/** Every IPv4 range '@web' must refuse, written out apart from the code under test (see egress-policy.test.ts). */
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
const oracle = new BlockList();
for (const cidr of REFUSED_V4) {
  const [network = '', prefix = ''] = cidr.split('/');
  oracle.addSubnet(network, Number(prefix), 'ipv4');
}

/** One address from each range '@web' must still refuse, with the reason the policy gives. */
const PRIVATE_SAMPLES: ReadonlyArray<[string, string]> = [
  ['0.1.2.3', 'this-network'],
  ['10.20.30.40', 'private'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['127.0.0.1', 'loopback'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['172.16.5.4', 'private'],
  ['192.168.1.1', 'private'],
  ['192.0.0.8', 'reserved'],
  ['198.18.0.1', 'benchmarking'],
  ['224.0.0.251', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['::1', 'loopback'],
  ['fd00:ec2::254', 'unique local (private)'],
  ['fe80::1', 'link-local'],
  ['ff02::1', 'multicast'],
];

/** '@web' on the web's two ports; names resolve through `dns` only (no query leaves the machine). */
function webPolicy(dns: Record<string, string[]>, list: string[] = ['@web']) {
  const resolved: string[] = [];
  const resolve: Resolver = async (host) => {
    resolved.push(host);
    return dns[host] ?? [];
  };
  return { policy: new EgressPolicy({ allowlist: () => list, ports: () => [80, 443], resolve }), resolved };
}

/** IPv4 addresses with the first octets drawn often from the refused ranges. */
const ipv4 = fc
  .tuple(
    fc.oneof(fc.constantFrom(0, 10, 100, 127, 169, 172, 192, 198, 203, 224, 240, 255), fc.nat(255)),
    fc.oneof(fc.constantFrom(0, 2, 16, 18, 31, 51, 64, 88, 168, 254), fc.nat(255)),
    fc.nat(255),
    fc.nat(255),
  )
  .map((bytes) => bytes.join('.'));
const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,14}[a-z0-9]$/);
const hostName = fc
  .tuple(label, label, fc.constantFrom('com', 'org', 'net', 'io'))
  .map((parts) => parts.join('.'));

describe("the '@web' egress preset", () => {
  it('allows any name that resolves to public addresses, and dials the address it judged', async () => {
    const { policy } = webPolicy({ 'docs.example.org': ['93.184.216.34', '2606:4700::1111'] });
    expect(await policy.decide('researcher', 'docs.example.org', 443)).toMatchObject({
      allowed: true,
      address: '93.184.216.34',
    });
  });

  it('allows every name and literal address exactly when it is public (against net.BlockList)', async () => {
    await fc.assert(
      fc.asyncProperty(hostName, ipv4, fc.boolean(), async (name, address, literal) => {
        const { policy } = webPolicy({ [name]: [address] });
        const decision = await policy.decide('researcher', literal ? address : name, 443);
        const refused = oracle.check(address, 'ipv4');
        expect(decision.allowed, `${name} -> ${address}`).toBe(!refused);
        if (decision.allowed) expect(decision.address).toBe(address);
        else
          expect(decision.reason).toMatch(
            literal ? `${address} is a ` : `${name} resolves to ${address}, a `,
          );
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses every private, loopback, link-local, metadata and reserved range, by name and as a literal', async () => {
    for (const [address, why] of PRIVATE_SAMPLES) {
      const { policy } = webPolicy({ 'inside.example.com': [address] });
      expect(await policy.decide('researcher', 'inside.example.com', 443), address).toMatchObject({
        allowed: false,
        reason: `inside.example.com resolves to ${address}, a ${why} address`,
      });
      const literal = address.includes(':') ? `[${address}]` : address;
      expect(await policy.decide('researcher', literal, 443), address).toMatchObject({
        allowed: false,
        reason: `${address} is a ${why} address`,
      });
    }
  });

  it('refuses a name when any of its answers is private (no rebinding through a second answer)', async () => {
    const { policy } = webPolicy({ 'mixed.example.com': ['93.184.216.34', '10.0.0.5'] });
    expect((await policy.decide('researcher', 'mixed.example.com', 443)).reason).toBe(
      'mixed.example.com resolves to 10.0.0.5, a private address',
    );
  });

  it('still holds the agent to egress_ports', async () => {
    const { policy, resolved } = webPolicy({ 'example.com': ['93.184.216.34'] });
    expect(await policy.decide('researcher', 'example.com', 22)).toMatchObject({
      allowed: false,
      reason:
        'port 22 is not in agents.researcher.permissions.egress_ports (allowed: 80, 443); add it there in mesh.yaml to allow it',
    });
    expect(resolved).toEqual([]);
  });

  it('opens a private range only where a CIDR of the same list names it', async () => {
    const { policy } = webPolicy({ 'lab.example.com': ['10.1.2.3'], 'other.example.com': ['10.9.9.9'] }, [
      '@web',
      '10.1.0.0/16',
    ]);
    expect(await policy.decide('researcher', 'lab.example.com', 443)).toMatchObject({
      allowed: true,
      address: '10.1.2.3',
    });
    expect((await policy.decide('researcher', 'other.example.com', 443)).reason).toBe(
      'other.example.com resolves to 10.9.9.9, a private address',
    );
  });

  it("keeps a bare 'web' a hostname glob: it names the host web, not the web", async () => {
    const { policy, resolved } = webPolicy({ web: ['93.184.216.34'], 'example.com': ['93.184.216.34'] }, [
      'web',
    ]);
    expect(await policy.decide('researcher', 'web', 443)).toMatchObject({ allowed: true });
    expect(await policy.decide('researcher', 'example.com', 443)).toMatchObject({
      allowed: false,
      reason:
        "example.com is not in agents.researcher.permissions.egress; to allow it add '@web' (any public host) or 'example.com' (this host only) to that list in mesh.yaml",
    });
    expect(resolved).toEqual(['web']);
  });

  it('reads no other @ entry as a host', async () => {
    const { policy } = webPolicy({ 'example.com': ['93.184.216.34'] }, ['@internet']);
    expect(await policy.decide('researcher', 'example.com', 443)).toMatchObject({ allowed: false });
  });
});

describe("'@web' in mesh.yaml", () => {
  it('validates, and an unknown preset is refused at its line with the known ones listed', () => {
    const good = 'llm: { providers: { openai: {} } }\nagents:\n  a: { permissions: { egress: ["@web"] } }\n';
    expect(parseMeshConfig(good, 'mesh.yaml').agents.a?.permissions.egress).toEqual(['@web']);
    const bad =
      'llm: { providers: { openai: {} } }\nagents:\n  a:\n    permissions:\n      egress: ["@internet"]\n';
    expect(() => parseMeshConfig(bad, 'mesh.yaml')).toThrow(
      "mesh.yaml: 1 problem\nmesh.yaml:5:16 agents.a.permissions.egress.0: unknown egress preset '@internet': the known presets are '@web' (any public host)",
    );
  });
});
