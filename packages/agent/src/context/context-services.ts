import type { Clock } from '@openlegion/infra/clock';
import type { AgentSelf } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { ContextRequest, LlmMessage } from './context-manager.js';
import type { ContextState, ContextStateStore } from './context-state-store.js';
import type { FactSink } from './fact-sink.js';
import type { FastTierCall } from './fast-tier.js';
import { messageFingerprint } from './message-fingerprint.js';

/** The thresholds and strategy of mesh.yaml `agents.NAME.context`, as `/mesh/self` gives them. */
export type ContextSettings = AgentSelf['context'];

/** What the flush and compaction steps work with. */
export interface ContextServices {
  settings: ContextSettings;
  call: FastTierCall;
  sink: FactSink;
  store: ContextStateStore;
  clock: Clock;
  logger: Logger;
}

/** Persist the conversation's new state and hand it back. */
export function saveState(
  services: ContextServices,
  request: ContextRequest,
  state: ContextState,
): ContextState {
  services.store.save(request.conversationId, state, services.clock.now());
  return state;
}

/**
 * The state after the summaries have come to stand for the first `covered` messages: a new
 * compaction cycle begins, so the next flush may run.
 */
export function coverThrough(
  state: ContextState,
  body: readonly LlmMessage[],
  covered: number,
  patch: Partial<ContextState> = {},
): ContextState {
  return {
    ...state,
    ...patch,
    covered,
    anchor: messageFingerprint(body[covered - 1]),
    cycle: state.cycle + 1,
  };
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
