import type { MeshStatus } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { TokenRegistry } from './auth/index.js';
import { blackboardFeature } from './blackboard/index.js';
import { costsFeature } from './costs/index.js';
import { credentialsFeature } from './credentials/index.js';
import { cronFeature } from './cron/index.js';
import { egressFeature } from './egress/index.js';
import type { HostFeature } from './features/index.js';
import type { FleetFeature } from './fleet/index.js';
import { healthFeature } from './health/index.js';
import { instructionsFeature } from './instructions/index.js';
import { createAgentClient, type Lanes, lanesFeature } from './lanes/index.js';
import { llmFeature } from './llm/index.js';
import { messagesFeature } from './messages/index.js';
import { OperatorNotices, operatorFeature } from './operator/index.js';
import { pubsubFeature } from './pubsub/index.js';
import { searchFeature } from './search/index.js';
import { tracesFeature } from './traces/index.js';
import { workflowsFeature } from './workflows/index.js';

export interface MeshFeatureDeps {
  fleet: FleetFeature;
  tokens: TokenRegistry;
  logger: Logger;
  meshStatus: () => MeshStatus;
  onShutdown: () => void;
  baseUrlOverrides?: Record<string, string> | undefined;
  allowUnlockedNetwork?: boolean | undefined;
}

/** The host's features in start order, and the services the composition root hands on. */
export interface MeshFeatures {
  features: HostFeature[];
  lanes: Lanes;
  notices: OperatorNotices;
}

/**
 * Every capability of the host. The start order comes from what each feature needs (see
 * `featureOrder`), the list order breaking ties; the agents come near the end, so they stop early
 * and every route they call exists before they start. Features not yet built from declared needs
 * still take the ones they use as options.
 */
export function meshFeatures(deps: MeshFeatureDeps): MeshFeatures {
  const { fleet, tokens } = deps;
  const agentAccess = { registry: fleet.registry, tokens, agentClient: createAgentClient() };
  const lanes = lanesFeature(agentAccess);
  const notices = new OperatorNotices(deps.logger);
  const workflows = workflowsFeature({
    lanes,
    meshBlackboard: true,
    meshEvents: true,
    notify: notices.publish,
  });
  const features: HostFeature[] = [
    tracesFeature(),
    costsFeature(),
    llmFeature({ baseUrlOverrides: deps.baseUrlOverrides, meterCosts: true }),
    instructionsFeature(),
    operatorFeature({
      ...agentAccess,
      meshStatus: deps.meshStatus,
      onShutdown: deps.onShutdown,
    }),
    lanes,
    blackboardFeature(),
    pubsubFeature({ lanes }),
    messagesFeature({ lanes }),
    cronFeature({ lanes }),
    workflows,
    egressFeature({ tokens, allowUnlockedNetwork: deps.allowUnlockedNetwork }),
    credentialsFeature(),
    searchFeature(),
    fleet,
    healthFeature({ fleet }),
  ];
  return { features, lanes, notices };
}
