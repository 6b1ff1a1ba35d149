export { type AgentRunOutcome, type AgentRunRow, AgentRunsRepository } from './agent-runs-repository.js';
export {
  type AgentRow,
  type AgentRuntimeKind,
  type AgentStateChanges,
  AgentsRepository,
} from './agents-repository.js';
export { MIGRATIONS } from './migrations.js';
export { openStore, type Store } from './open-store.js';
