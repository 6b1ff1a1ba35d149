import { eventKey } from '../features/index.js';
import type { AgentRecord } from './agent-record.js';

/** An agent moved to another lifecycle state (starting, ready, failed, stopped, ...). */
export const AGENT_STATE_CHANGED = eventKey<AgentRecord>('registry.agent-state-changed');
