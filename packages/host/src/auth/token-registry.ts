import { digestMatches, generateToken, tokenDigest } from '@openlegion/infra/http';

interface MintedToken {
  token: string;
  digest: Buffer;
}

/** An agent's two credentials, each good for one door only. */
interface AgentTokens {
  /** The bearer of the mesh, LLM and agent routes (`MESH_TOKEN`). */
  mesh: MintedToken;
  /** The egress proxy's password (in `HTTP_PROXY`), which the commands an agent runs also see. */
  proxy: MintedToken;
}

function minted(): MintedToken {
  const token = generateToken();
  return { token, digest: tokenDigest(token) };
}

/**
 * The agent tokens of this host run. Tokens are minted at every agent start and live only in host
 * memory and the agent's environment; a token alone identifies the agent. Each agent gets two: its
 * mesh token, which only the host's routes accept, and its proxy token, which only the egress proxy
 * accepts — so a command the agent runs, which must see the proxy's URL to browse, holds nothing
 * that speaks for the agent on the mesh.
 */
export class TokenRegistry {
  readonly #byAgent = new Map<string, AgentTokens>();

  /** New tokens for `agent` (mesh and proxy), replacing any previous ones; returns the mesh token. */
  mint(agent: string): string {
    const tokens = { mesh: minted(), proxy: minted() };
    this.#byAgent.set(agent, tokens);
    return tokens.mesh.token;
  }

  /** Forget the agent's tokens: they no longer identify anyone. */
  revoke(agent: string): void {
    this.#byAgent.delete(agent);
  }

  /**
   * The agent a mesh token belongs to, or undefined (a proxy token is not one). Compares SHA-256
   * digests in constant time against every known token, without stopping at the first match.
   */
  identify(token: string): string | undefined {
    return this.identifyDigest(tokenDigest(token));
  }

  /** {@link identify} for a token whose digest the caller already has. */
  identifyDigest(presented: Buffer): string | undefined {
    return this.#match(presented, 'mesh');
  }

  /** The agent a proxy token belongs to, or undefined (a mesh token is not one). */
  identifyProxy(token: string): string | undefined {
    return this.#match(tokenDigest(token), 'proxy');
  }

  /** Host-internal: the token the host presents when it calls the agent. */
  tokenFor(agent: string): string | undefined {
    return this.#byAgent.get(agent)?.mesh.token;
  }

  /** Host-internal: the agent's proxy token, for its `HTTP_PROXY`. */
  proxyTokenFor(agent: string): string | undefined {
    return this.#byAgent.get(agent)?.proxy.token;
  }

  #match(presented: Buffer, kind: keyof AgentTokens): string | undefined {
    let match: string | undefined;
    for (const [agent, known] of this.#byAgent) {
      if (digestMatches(presented, known[kind].digest) && match === undefined) match = agent;
    }
    return match;
  }
}
