export { WorkflowCatalog } from './definition/workflow-catalog.js';
export {
  type LoadedWorkflow,
  loadWorkflowFile,
  parseWorkflowFile,
  workflowProblems,
} from './definition/workflow-file.js';
export { type RunRequest, WorkflowEngine } from './engine/workflow-engine.js';
export { inMemoryBlackboard, inMemoryEvents } from './in-memory-ports.js';
export { meshBlackboard } from './mesh-blackboard.js';
export { meshEvents } from './mesh-events.js';
export type { RunRecord, RunTrigger, StepRecord } from './store/workflow-records.js';
export { WorkflowRepository } from './store/workflow-repository.js';
export type {
  WorkflowBlackboard,
  WorkflowEvent,
  WorkflowEvents,
  WorkflowLanes,
  WorkflowNotify,
} from './workflow-ports.js';
export {
  WORKFLOW_STEP_CHANGED,
  WORKFLOWS,
  type Workflows,
  type WorkflowsFeatureOptions,
  workflowsFeature,
} from './workflows-feature.js';
