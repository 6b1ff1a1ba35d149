import { WEB_EGRESS_PRESET } from '@openlegion/protocol';
import { globMatcher } from '../permissions/index.js';
import { inListedCidr, listedCidrs, refusedBecause } from './address-policy.js';
import { badPortProblem, hostProblem } from './egress-target.js';
import { type NormalisedAddress, normaliseAddress } from './normalise-address.js';

/** Resolves a name to its addresses (injected in tests, so no query leaves the machine). */
export type Resolver = (host: string) => Promise<string[]>;

export interface EgressDecision {
  agent: string;
  /** The host as judged: a literal address in its normalised form. */
  host: string;
  port: number;
  allowed: boolean;
  /** The address to connect to (normalised), when allowed. */
  address?: string;
  reason?: string;
  /** The request itself is malformed (a bad host or port): answer 400, not 403. */
  invalid?: boolean;
  /** The trace header (`x-trace-id`) the request carried, so the decision shows in that trace. */
  traceId?: string;
}

export interface EgressPolicyDeps {
  /** The agent's `permissions.egress`: domain globs, literal addresses, CIDRs, presets (`'@web'`). */
  allowlist(agent: string): readonly string[];
  /** The agent's `permissions.egress_ports`. */
  ports(agent: string): readonly number[];
  resolve: Resolver;
}

/**
 * Who may reach what: the one decision the egress proxy and `/mesh/http` share. Every address — a
 * literal from the agent or an answer from DNS — is parsed to bytes and normalised (an IPv4 address
 * in IPv6 clothing is unwrapped) before any check, and the address it allows is the normalised one,
 * so the address judged is the address dialled.
 */
export class EgressPolicy {
  readonly #deps: EgressPolicyDeps;

  constructor(deps: EgressPolicyDeps) {
    this.#deps = deps;
  }

  /** Whether `agent` may reach `host:port` (host as in a URL: an IPv6 literal may be bracketed), and at which address. */
  async decide(agent: string, host: string, port: number): Promise<EgressDecision> {
    const invalid = (reason: string): EgressDecision => ({
      agent,
      host: host.slice(0, 255),
      port,
      allowed: false,
      reason,
      invalid: true,
    });
    const problem = hostProblem(host);
    if (problem) return invalid(problem);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) return invalid(badPortProblem(String(port)));
    const bracketed = host.startsWith('[');
    const bare = bracketed ? host.slice(1, -1) : host;
    const literal = normaliseAddress(bare);
    if (bracketed && !literal) return invalid(`${host.slice(0, 60)} is not an IPv6 address`);
    const name = literal ? literal.text : bare.toLowerCase();
    const refuse = (reason: string): EgressDecision => ({ agent, host: name, port, allowed: false, reason });
    const ports = this.#deps.ports(agent);
    if (!ports.includes(port))
      return refuse(
        `port ${port} is not in agents.${agent}.permissions.egress_ports (allowed: ${ports.join(', ') || 'none'}); add it there in mesh.yaml to allow it`,
      );
    const list = this.#deps.allowlist(agent);
    const cidrs = listedCidrs(list);
    const byName = hostMatcher(list);
    const notListed = (shown: string) => refuse(notListedReason(agent, shown, name));
    if (literal) {
      const shown = literal.text === bare ? bare : `${bare} (${literal.text})`;
      if (!inListedCidr(cidrs, literal.address)) {
        const why = refusedBecause(literal.address);
        if (why) return refuse(`${shown} is a ${why} address`);
        if (!byName(name)) return notListed(shown);
      }
      return { agent, host: name, port, allowed: true, address: literal.text };
    }
    if (!byName(name)) return notListed(name);
    let answers: string[];
    try {
      answers = await this.#deps.resolve(name);
    } catch (error) {
      return refuse(`${name} does not resolve (${(error as Error).message})`);
    }
    if (answers.length === 0) return refuse(`${name} does not resolve`);
    const addresses: NormalisedAddress[] = [];
    for (const answer of answers) {
      const address = normaliseAddress(answer);
      if (!address) return refuse(`${name} resolves to ${answer.slice(0, 60)}, which is not an IP address`);
      const why = inListedCidr(cidrs, address.address) ? undefined : refusedBecause(address.address);
      if (why) return refuse(`${name} resolves to ${address.text}, a ${why} address`);
      addresses.push(address);
    }
    // Checked above: at least one answer, each normalised.
    const first = addresses[0] as NormalisedAddress;
    return { agent, host: name, port, allowed: true, address: first.text };
  }
}

/**
 * Whether a host (a name, or a literal address in its normalised spelling) is on the list by name.
 * `'@web'` lets every host through to the address policy, which alone then decides: it still refuses
 * loopback, private, link-local, metadata and reserved addresses (literal or resolved) unless a CIDR
 * of the same list names them. Other presets are refused by the config schema; the host ignores
 * any it does not know rather than read one as a host name.
 */
function hostMatcher(list: readonly string[]): (host: string) => boolean {
  if (list.includes(WEB_EGRESS_PRESET)) return () => true;
  // A CIDR names addresses, not hosts; an `@` entry is a preset, never a host (`@` is not in a name).
  const patterns = list.filter((pattern) => !pattern.includes('/') && !pattern.startsWith('@'));
  return globMatcher(patterns.map(normalisedPattern));
}

/**
 * The refusal for a host the list does not name, written for the model and the person reading its
 * answer alike: the exact field of mesh.yaml and the two entries that would open it.
 */
export function notListedReason(agent: string, shown: string, host: string): string {
  return `${shown} is not in agents.${agent}.permissions.egress; to allow it add '${WEB_EGRESS_PRESET}' (any public host) or '${host}' (this host only) to that list in mesh.yaml`;
}

/** A literal address in the allowlist is compared in its normalised spelling, like the host. */
function normalisedPattern(pattern: string): string {
  if (pattern.includes('*') || pattern.includes('?')) return pattern.toLowerCase();
  return normaliseAddress(pattern)?.text ?? pattern.toLowerCase();
}
