import type { ChatEvent } from '@openlegion/protocol';
import { eventKey } from '../features/index.js';
import type { LaneItem } from './lane-item.js';

/** Where a lane item is: queued, started running, or settled (done, failed, cancelled, steered). */
export type LaneItemPhase = 'queued' | 'running' | 'settled';

/** A lane item moved on (traces record each move as a hop of the item's trace). */
export const LANE_ITEM_CHANGED = eventKey<{ item: LaneItem; phase: LaneItemPhase }>('lanes.item-changed');

/** What an agent's automatic recall put into a turn's prompt, as it reported it (traces record it). */
export const LANE_TURN_RECALLED = eventKey<{
  item: LaneItem;
  recall: Extract<ChatEvent, { type: 'recall' }>;
}>('lanes.turn-recalled');

/** A tool call of a turn began or ended, as the agent's stream told (telemetry's `execute_tool` spans). */
export const LANE_TOOL_CALLED = eventKey<{
  item: LaneItem;
  event: Extract<ChatEvent, { type: 'tool_start' | 'tool_result' }>;
}>('lanes.tool-called');
