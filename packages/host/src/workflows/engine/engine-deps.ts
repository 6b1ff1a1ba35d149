import type { Clock } from '@openlegion/infra/clock';
import type { Logger } from 'pino';
import type { WorkflowRepository } from '../store/workflow-repository.js';
import type { WorkflowBlackboard, WorkflowEvents, WorkflowLanes, WorkflowNotify } from '../workflow-ports.js';
import type { RunState } from './run-state.js';

/** What the engine is built from. */
export interface EngineDeps {
  repo: WorkflowRepository;
  lanes: WorkflowLanes;
  clock: Clock;
  logger: Logger;
  blackboard: WorkflowBlackboard;
  events?: WorkflowEvents;
  notify?: WorkflowNotify;
  /** How long a step waits for a stopped agent (when it has no timeout of its own) before it fails. */
  agentWaitMs?: number;
  /**
   * How steps reach their agents: `chat` (POST /chat, one fresh conversation per step) or `task`
   * (POST /task). Default `chat`, which every agent serves today.
   */
  stepKind?: 'chat' | 'task';
}

/** Something to do for a run at a time (a retry, a timeout, a look at a stopped agent). */
export interface RunTimers {
  /** Run `action` (serialized with the run's other work) at `at`; replaces a timer of the same name. */
  schedule(state: RunState, name: string, at: number, action: () => Promise<void>): void;
  unschedule(state: RunState, name: string): void;
}

/** How long a step waits for its stopped agent by default. */
export const DEFAULT_AGENT_WAIT_MS = 300_000;
/** How often a waiting step looks again whether its agent takes work. */
export const AGENT_POLL_MS = 5_000;
/** Retries never wait longer than this, however often the backoff doubled. */
export const MAX_BACKOFF_MS = 600_000;
