import { digestMatches, generateToken, tokenDigest } from '@openlegion/infra/http';

interface AgentToken {
  token: string;
  digest: Buffer;
}

/**
 * The agent tokens of this host run. A token is minted at every agent start and lives only in
 * host memory and the agent's environment; the token alone identifies the agent.
 */
export class TokenRegistry {
  readonly #byAgent = new Map<string, AgentToken>();

  /** A new token for `agent`, replacing any previous one. */
  mint(agent: string): string {
    const token = generateToken();
    this.#byAgent.set(agent, { token, digest: tokenDigest(token) });
    return token;
  }

  /** Forget the agent's token: it no longer identifies anyone. */
  revoke(agent: string): void {
    this.#byAgent.delete(agent);
  }

  /**
   * The agent a token belongs to, or undefined. Compares SHA-256 digests in constant time against
   * every known token, without stopping at the first match.
   */
  identify(token: string): string | undefined {
    return this.identifyDigest(tokenDigest(token));
  }

  /** {@link identify} for a token whose digest the caller already has. */
  identifyDigest(presented: Buffer): string | undefined {
    let match: string | undefined;
    for (const [agent, known] of this.#byAgent) {
      if (digestMatches(presented, known.digest) && match === undefined) match = agent;
    }
    return match;
  }

  /** Host-internal: the token the host presents when it calls the agent. */
  tokenFor(agent: string): string | undefined {
    return this.#byAgent.get(agent)?.token;
  }
}
