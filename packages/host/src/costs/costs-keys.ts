import { eventKey, serviceKey } from '../features/index.js';
import type { CostMeter } from './cost-meter.js';
import type { UsageLog, UsageRecord } from './usage-log.js';

/** Reserves and records what each LLM call costs (the llm feature needs it). */
export const COST_METER = serviceKey<CostMeter>('costs.meter');
/** The usage of every call, in mesh.db. */
export const USAGE_LOG = serviceKey<UsageLog>('costs.usage-log');
/** A call's usage was recorded (a workflow step's cost is the sum of its calls'). */
export const USAGE_RECORDED = eventKey<UsageRecord>('costs.usage-recorded');
