import type { AgentTool } from '@openlegion/protocol';
import { createBlackboardTools } from './blackboard-tools.js';
import { createBlackboardWatchTool } from './blackboard-watch-tool.js';
import { createCronTools } from './cron-tools.js';
import { createMeshClient, type MeshClient, type MeshClientOptions } from './mesh-client.js';
import { createMessageTools } from './message-tools.js';
import { createSpawnTools } from './spawn-tools.js';
import { createSubscriptionTools } from './subscription-tools.js';

/** The `mesh` group: blackboard, pub/sub, messages to other agents, cron and fleet spawn, through the host. */
export function createMeshTools(options: { mesh: MeshClient | MeshClientOptions }): AgentTool[] {
  const mesh = 'call' in options.mesh ? options.mesh : createMeshClient(options.mesh);
  return [
    ...createBlackboardTools(mesh),
    createBlackboardWatchTool(mesh),
    ...createMessageTools(mesh),
    ...createSubscriptionTools(mesh),
    ...createCronTools(mesh),
    ...createSpawnTools(mesh),
  ];
}
