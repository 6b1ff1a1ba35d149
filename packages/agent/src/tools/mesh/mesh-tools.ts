import type { AgentTool } from '@openlegion/protocol';
import { createBlackboardTools } from './blackboard-tools.js';
import { createMeshClient, type MeshClient, type MeshClientOptions } from './mesh-client.js';
import { createMessageTools } from './message-tools.js';

/** The `mesh` group: blackboard, pub/sub and messages to other agents, through the host. */
export function createMeshTools(options: { mesh: MeshClient | MeshClientOptions }): AgentTool[] {
  const mesh = 'call' in options.mesh ? options.mesh : createMeshClient(options.mesh);
  return [...createBlackboardTools(mesh), ...createMessageTools(mesh)];
}
