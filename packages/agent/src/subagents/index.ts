export { type ParentTurns, withParentTurns } from './parent-turns.js';
export { type SquadMemoryClient, squadMemoryClient } from './squad-memory-client.js';
export {
  type ChildLoopFactory,
  MAX_CONCURRENT_SUBAGENTS,
  MAX_SUBAGENT_DEPTH,
  MAX_SUBAGENT_RESTARTS,
  type SubagentDelivery,
  SubagentManager,
  type SubagentRecord,
  type SubagentSpec,
  type SubagentState,
} from './subagent-manager.js';
export { type SubagentLister, subagentRoutes } from './subagent-routes.js';
export { type StoredRun, SubagentStore } from './subagent-store.js';
export { createSubagentTools, SUBAGENT_TOOL_NAMES } from './subagent-tools.js';
