import type { AgentInfo } from '@openlegion/protocol';
import type { AgentRuntimeKind } from './agents-repository.js';

/** The states the host tracks for an agent (the agent itself may also report `busy`). */
export type AgentLifecycleState = 'starting' | 'ready' | 'stopping' | 'stopped' | 'failed';

/** The host's live view of one agent. */
export interface AgentRecord {
  name: string;
  state: AgentLifecycleState;
  runtime: AgentRuntimeKind;
  /** Where the host reaches the agent (`http://…:8400`); null until known. */
  url: string | null;
  container: string | null;
  /** The resolved provider/model. */
  model: string;
  startedAt: string | null;
  readyAt: string | null;
  lastError: string | null;
  /** Starts of this agent in this host run after the first one. */
  restarts: number;
  /** A temporary agent (fleet spawn), not one of mesh.yaml. */
  temporary?: boolean;
}

/** The record as `GET /api/status` shows it. */
export function toAgentInfo(record: AgentRecord): AgentInfo {
  return {
    name: record.name,
    state: record.state,
    runtime: record.runtime,
    model: record.model,
    url: record.url,
    container: record.container,
    started_at: record.startedAt,
    ready_at: record.readyAt,
    restarts: record.restarts,
    last_error: record.lastError,
    ...(record.temporary ? { temporary: true } : {}),
  };
}
