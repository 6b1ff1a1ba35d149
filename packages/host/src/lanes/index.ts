export { type AgentChatDeps, reachableAgent } from './agent-chat.js';
export { type AgentClient, createAgentClient } from './agent-client.js';
export { LaneDispatcher, type LaneItemEvent } from './lane-dispatcher.js';
export {
  LANE_ITEM_CHANGED,
  LANE_TOOL_CALLED,
  LANE_TURN_RECALLED,
  type LaneItemPhase,
} from './lane-events.js';
export {
  LANE_MODES,
  LANE_SOURCES,
  type LaneItem,
  type LaneMode,
  type LaneRequest,
  type LaneSource,
} from './lane-item.js';
export type { Enqueued } from './lane-queue.js';
export { LaneRepository } from './lane-repository.js';
export { LANES, type Lanes } from './lanes.js';
export { type LanesFeatureOptions, lanesFeature } from './lanes-feature.js';
