// Workflow files are config files too: the CLI validates them without loading the host.
export {
  type LoadedWorkflow,
  loadWorkflowFile,
  parseWorkflowFile,
  workflowProblems,
} from '../workflows/definition/workflow-file.js';
export { type LoadedMeshConfig, loadMeshConfig, parseMeshConfig } from './load-mesh-config.js';
export {
  type ConfigProblem,
  type FieldPath,
  formatConfigProblem,
  problemsMessage,
  sortProblems,
  YamlSource,
} from './yaml-source.js';
