import { type AgentConfig, deepFreeze, type MeshConfig, OpenLegionError } from '@openlegion/protocol';

/**
 * A validated config frozen all the way down except for one door: `agents` takes temporary agents
 * (fleet spawn) while the host runs. mesh.yaml's own agents stay fixed (each frozen, and its key
 * neither writable nor removable); only {@link addTemporaryAgent} and {@link removeTemporaryAgent}
 * open the door, so every feature that looks an agent up (permissions, lanes, the LLM proxy,
 * egress) finds a temporary agent exactly as it finds one of mesh.yaml.
 */
export function freezeMeshConfig<T extends MeshConfig>(config: T): T {
  for (const [key, value] of Object.entries(config)) if (key !== 'agents') deepFreeze(value);
  for (const [name, agent] of Object.entries(config.agents)) {
    Object.defineProperty(config.agents, name, {
      value: deepFreeze(agent),
      enumerable: true,
      writable: false,
      configurable: false,
    });
  }
  return Object.freeze(config);
}

/** Add a temporary agent with its template's fields (frozen); INTERNAL if the name is taken. */
export function addTemporaryAgent(config: MeshConfig, name: string, agent: AgentConfig): void {
  if (Object.hasOwn(config.agents, name))
    throw new OpenLegionError('INTERNAL', `agent name "${name}" is already taken`);
  Object.defineProperty(config.agents, name, {
    value: deepFreeze(structuredClone(agent)),
    enumerable: true,
    writable: false,
    // Removable: the agent leaves when its task or TTL ends.
    configurable: true,
  });
}

/** Remove a temporary agent; mesh.yaml's agents cannot be removed (their keys are not configurable). */
export function removeTemporaryAgent(config: MeshConfig, name: string): void {
  const property = Object.getOwnPropertyDescriptor(config.agents, name);
  if (property?.configurable) Reflect.deleteProperty(config.agents, name);
}
