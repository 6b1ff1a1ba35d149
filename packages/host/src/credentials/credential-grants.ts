import { type CredentialGrant, type MeshConfig, OpenLegionError } from '@openlegion/protocol';
import { globMatcher } from '../permissions/index.js';

/** Where a `$CRED{NAME}` was found: a grantable place (`header:x`, `query:x`, `body`, `path`) or another part of the request. */
export type RequestPlace = string;

interface CompiledGrant {
  grant: CredentialGrant;
  allowsHost: (host: string) => boolean;
}

const cache = new WeakMap<MeshConfig, CredentialGrants>();

/**
 * The credential grants of mesh.yaml (`agents.NAME.permissions.credentials`): each binds a vault
 * name to the hosts it may be sent to and the places in a request it may fill. Whether the agent
 * holds the grant at all is MeshPermissions' question; this answers where it may go.
 */
export class CredentialGrants {
  readonly #config: MeshConfig;
  /** Compiled per agent config object: a temporary agent (fleet spawn) is compiled when first asked about. */
  readonly #grants = new WeakMap<MeshConfig['agents'][string], Map<string, CompiledGrant>>();

  /** The grants of `config` (one instance per config). */
  static of(config: MeshConfig): CredentialGrants {
    let grants = cache.get(config);
    if (!grants) {
      grants = new CredentialGrants(config);
      cache.set(config, grants);
    }
    return grants;
  }

  constructor(config: MeshConfig) {
    this.#config = config;
  }

  #of(agent: string): Map<string, CompiledGrant> | undefined {
    const agentConfig = Object.hasOwn(this.#config.agents, agent) ? this.#config.agents[agent] : undefined;
    if (!agentConfig) return undefined;
    let compiled = this.#grants.get(agentConfig);
    if (!compiled) {
      compiled = new Map<string, CompiledGrant>();
      for (const [name, grant] of Object.entries(agentConfig.permissions.credentials))
        compiled.set(name, { grant, allowsHost: globMatcher(grant.hosts) });
      this.#grants.set(agentConfig, compiled);
    }
    return compiled;
  }

  /** Each credential `agent` is granted, with where it may go. */
  list(agent: string): { name: string; hosts: readonly string[]; in: readonly string[] }[] {
    return [...(this.#of(agent) ?? [])].map(([name, { grant }]) => ({
      name,
      hosts: grant.hosts,
      in: grant.in,
    }));
  }

  /**
   * Throws 403 MESH_CREDENTIAL_FORBIDDEN unless `agent`'s grant of `name` allows `place` on `host`;
   * the message names the credential, the place and host tried, and what the grant allows.
   */
  requirePlace(agent: string, name: string, place: RequestPlace, host: string): void {
    const compiled = this.#of(agent)?.get(name);
    const placeOk = compiled?.grant.in.includes(place as CredentialGrant['in'][number]) ?? false;
    if (compiled && placeOk && compiled.allowsHost(host.toLowerCase())) return;
    const allowed = compiled
      ? `agents.${agent}.permissions.credentials.${name} allows ${compiled.grant.in.join(' or ')} to ${compiled.grant.hosts.join(', ')}`
      : `agents.${agent}.permissions.credentials has no ${name}`;
    throw new OpenLegionError(
      'MESH_CREDENTIAL_FORBIDDEN',
      `$CRED{${name}} may not be sent in ${place} to ${host}: ${allowed}`,
      {
        details: {
          agent,
          credential: name,
          place,
          host,
          ...(compiled ? { allowed: { hosts: compiled.grant.hosts, in: compiled.grant.in } } : {}),
        },
      },
    );
  }
}
