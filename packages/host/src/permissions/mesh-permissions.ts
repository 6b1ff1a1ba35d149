import { type MeshConfig, OpenLegionError } from '@openlegion/protocol';
import { globMatcher } from './pattern-matcher.js';

/** What an agent may be allowed, named as in mesh.yaml under `agents.NAME.permissions`. */
export type MeshPermission =
  | 'blackboard.read'
  | 'blackboard.write'
  | 'pubsub.publish'
  | 'pubsub.subscribe'
  | 'message'
  | 'credentials'
  | 'egress'
  | 'memory.read'
  | 'memory.write'
  | 'spawn';

type Grants = Record<MeshPermission, { patterns: readonly string[]; matches: (target: string) => boolean }>;

const cache = new WeakMap<MeshConfig, MeshPermissions>();

/**
 * Deny by default: an agent may do only what its `permissions` in mesh.yaml grant, and an agent the
 * config does not name may do nothing. Every mesh route asks here, so the rules live in one place.
 */
export class MeshPermissions {
  readonly #config: MeshConfig;
  /** Compiled per agent config object: a temporary agent (fleet spawn) is compiled when first asked about. */
  readonly #grants = new WeakMap<MeshConfig['agents'][string], Grants>();

  /** The permissions of `config` (one instance per config: routes share it). */
  static of(config: MeshConfig): MeshPermissions {
    let permissions = cache.get(config);
    if (!permissions) {
      permissions = new MeshPermissions(config);
      cache.set(config, permissions);
    }
    return permissions;
  }

  constructor(config: MeshConfig) {
    this.#config = config;
  }

  #of(agent: string): Grants | undefined {
    if (!Object.hasOwn(this.#config.agents, agent)) return undefined;
    const agentConfig = this.#config.agents[agent];
    if (!agentConfig) return undefined;
    let grants = this.#grants.get(agentConfig);
    if (!grants) {
      const { permissions } = agentConfig;
      const grant = (patterns: readonly string[]) => ({ patterns, matches: globMatcher(patterns) });
      grants = {
        'blackboard.read': grant(permissions.blackboard.read),
        'blackboard.write': grant(permissions.blackboard.write),
        'pubsub.publish': grant(permissions.pubsub.publish),
        'pubsub.subscribe': grant(permissions.pubsub.subscribe),
        message: grant(permissions.message),
        // The names granted; where each may go is the credentials feature's CredentialGrants.
        credentials: grant(Object.keys(permissions.credentials)),
        egress: grant(permissions.egress),
        'memory.read': grant(permissions.memory.read),
        'memory.write': grant(permissions.memory.write),
        spawn: grant(permissions.spawn),
      };
      this.#grants.set(agentConfig, grants);
    }
    return grants;
  }

  can(agent: string, permission: MeshPermission, target: string): boolean {
    return this.#of(agent)?.[permission].matches(target) ?? false;
  }

  /** Throws 403 MESH_FORBIDDEN naming the agent, the permission, the target and what is granted. */
  require(agent: string, permission: MeshPermission, target: string): void {
    if (this.can(agent, permission, target)) return;
    const granted = this.#of(agent)?.[permission].patterns;
    let why = granted
      ? `agents.${agent}.permissions.${permission} in mesh.yaml is ${JSON.stringify(granted)}`
      : `"${agent}" is not an agent of mesh.yaml`;
    // Shared memory is new to most fleets: say the line that grants it.
    if (granted && permission.startsWith('memory.'))
      why += `; add "${target}" to agents.${agent}.permissions.${permission} in mesh.yaml to allow it`;
    throw new OpenLegionError(
      'MESH_FORBIDDEN',
      `agent "${agent}" may not ${permission.replace('.', ' ')} "${target}": ${why}`,
      { details: { agent, permission, target } },
    );
  }
}
