import type { MeshStatus } from '@openlegion/protocol';
import { approvalsFeature } from './approvals/index.js';
import { blackboardFeature } from './blackboard/index.js';
import { costsFeature } from './costs/index.js';
import { credentialsFeature } from './credentials/index.js';
import { cronFeature } from './cron/index.js';
import { dashboardFeature } from './dashboard/index.js';
import { egressFeature } from './egress/index.js';
import type { HostFeature } from './features/index.js';
import { healthFeature } from './health/index.js';
import { instructionsFeature } from './instructions/index.js';
import { lanesFeature } from './lanes/index.js';
import { llmFeature } from './llm/index.js';
import { mcpFeature } from './mcp/index.js';
import { memoryFeature } from './memory/index.js';
import { messagesFeature } from './messages/index.js';
import { operatorFeature } from './operator/index.js';
import { pubsubFeature } from './pubsub/index.js';
import { registryFeature } from './registry/index.js';
import { searchFeature } from './search/index.js';
import { spawnFeature } from './spawn/index.js';
import { telemetryFeature } from './telemetry/index.js';
import { tracesFeature } from './traces/index.js';
import { workflowsFeature } from './workflows/index.js';

/** What only the composition root knows: the fleet it wires to its listener, status and shutdown. */
export interface MeshFeatureDeps {
  fleet: HostFeature;
  meshStatus: () => MeshStatus;
  onShutdown: () => void;
  baseUrlOverrides?: Record<string, string> | undefined;
  allowUnlockedNetwork?: boolean | undefined;
  /** The host's version, for telemetry's `service.version`. */
  version?: string | undefined;
}

/**
 * Every capability of the host. Features find each other through what they declare they need and
 * provide; the start order comes from those needs (see `featureOrder`), the list order breaking
 * ties; the agents come near the end, so they stop early and every route they call exists before
 * they start.
 */
export function meshFeatures(deps: MeshFeatureDeps): HostFeature[] {
  const { fleet } = deps;
  const features: HostFeature[] = [
    registryFeature(),
    tracesFeature(),
    costsFeature(),
    llmFeature({ baseUrlOverrides: deps.baseUrlOverrides, meterCosts: true }),
    instructionsFeature(),
    operatorFeature({ meshStatus: deps.meshStatus, onShutdown: deps.onShutdown }),
    lanesFeature(),
    blackboardFeature(),
    pubsubFeature(),
    messagesFeature(),
    cronFeature(),
    approvalsFeature(),
    workflowsFeature({ meshBlackboard: true, meshEvents: true, operatorNotices: true, approvals: true }),
    egressFeature({ allowUnlockedNetwork: deps.allowUnlockedNetwork }),
    credentialsFeature(),
    dashboardFeature(),
    searchFeature(),
    mcpFeature(),
    memoryFeature(),
    telemetryFeature({ version: deps.version ?? 'unknown' }),
    fleet,
    spawnFeature(),
    healthFeature(),
  ];
  return features;
}
