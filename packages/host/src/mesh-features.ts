import type { MeshStatus } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { TokenRegistry } from './auth/index.js';
import { type BlackboardFeature, blackboardFeature } from './blackboard/index.js';
import { costsFeature } from './costs/index.js';
import { credentialsFeature } from './credentials/index.js';
import { cronFeature } from './cron/index.js';
import { type EgressFeature, egressFeature } from './egress/index.js';
import type { HostFeature } from './features/index.js';
import type { FleetFeature } from './fleet/index.js';
import { healthFeature } from './health/index.js';
import { instructionsFeature } from './instructions/index.js';
import { createAgentClient, type Lanes, lanesFeature } from './lanes/index.js';
import { llmFeature } from './llm/index.js';
import { messagesFeature } from './messages/index.js';
import { OperatorNotices, operatorFeature } from './operator/index.js';
import { type PubsubFeature, pubsubFeature, topicMatcher } from './pubsub/index.js';
import { tracesFeature } from './traces/index.js';
import type { WorkflowBlackboard, WorkflowEvents, WorkflowsFeature } from './workflows/index.js';
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
  egress: EgressFeature;
  lanes: Lanes;
  workflows: WorkflowsFeature;
  notices: OperatorNotices;
}

/**
 * Every capability of the host, wired to the ones it uses. Start order is dependency order; the
 * agents come near the end, so they stop early and every route they call exists before they start.
 */
export function meshFeatures(deps: MeshFeatureDeps): MeshFeatures {
  const { fleet, tokens } = deps;
  const agentAccess = { registry: fleet.registry, tokens, agentClient: createAgentClient() };
  const traces = tracesFeature();
  const lanes = lanesFeature({
    ...agentAccess,
    pendingEvents: (agent) => pubsub.pubsub().pendingEvents(agent),
    onItem: traces.laneItem,
  });
  const blackboard = blackboardFeature();
  const egress = egressFeature({
    tokens,
    allowUnlockedNetwork: deps.allowUnlockedNetwork,
    onDecision: (decision) => {
      if (decision.traceId)
        traces.record({
          trace_id: decision.traceId,
          hop: `egress ${decision.allowed ? 'allowed' : 'refused'}`,
          agent: decision.agent,
          detail: {
            host: decision.host,
            port: decision.port,
            ...(decision.reason ? { reason: decision.reason } : {}),
          },
        });
    },
  });
  const pubsub = pubsubFeature({ lanes });
  const notices = new OperatorNotices(deps.logger);
  const workflows = workflowsFeature({
    lanes,
    blackboard: workflowBlackboard(blackboard, deps.logger),
    events: workflowEvents(pubsub, deps.logger),
    notify: notices.publish,
  });
  const instructions = instructionsFeature();
  const costs = costsFeature({
    // A workflow step's cost: the calls its agent made under the step's lane item's trace id.
    onRecorded: (usage) => {
      const item = usage.trace_id ? lanes.repository().byTrace(usage.trace_id, usage.agent) : undefined;
      if (item?.source === 'workflow' && item.sourceRef)
        workflows.repository().addCost(item.sourceRef, usage.cost_usd);
    },
  });
  const features: HostFeature[] = [
    traces,
    costs,
    llmFeature({ baseUrlOverrides: deps.baseUrlOverrides, costs: costs.meter }),
    instructions,
    operatorFeature({
      ...agentAccess,
      instructions,
      meshStatus: deps.meshStatus,
      onShutdown: deps.onShutdown,
    }),
    lanes,
    blackboard,
    pubsub,
    messagesFeature({ lanes }),
    credentialsFeature({ egress }),
    cronFeature({ lanes }),
    workflows,
    egress,
    fleet,
    healthFeature({ fleet }),
  ];
  return { features, egress, lanes, workflows, notices };
}

/** Workflows read and write the mesh's blackboard (`${blackboard:key}`, `save_to`). */
function workflowBlackboard(blackboard: BlackboardFeature, logger: Logger): WorkflowBlackboard {
  return {
    get: (key) => blackboard.store().get(key)?.value,
    put: (key, value, by) => {
      blackboard
        .store()
        .put(key, value, by)
        .catch((error: unknown) =>
          logger.error({ err: error, key }, 'a workflow could not write the blackboard'),
        );
    },
  };
}

/** Workflows are triggered by and publish to the mesh's pub/sub. */
export function workflowEvents(pubsub: PubsubFeature, logger: Logger): WorkflowEvents {
  return {
    // A refused publish (a payload past limits.pubsub_payload_bytes) is logged, never left unhandled.
    publish: (topic, payload, by) => {
      pubsub
        .pubsub()
        .publish(topic, payload, by)
        .catch((error: unknown) => logger.error({ err: error, topic, by }, 'a workflow could not publish'));
    },
    subscribe: (pattern, onEvent) => {
      const matches = topicMatcher(pattern);
      return pubsub.pubsub().listen((event) => {
        if (matches(event.topic)) onEvent({ topic: event.topic, payload: event.payload, id: event.id });
      });
    },
  };
}
