import { type ChatEvent, TIER_NAMES } from '@openlegion/protocol';
import type { ConversationStore } from '../conversation-store.js';
import type { ModelDirective } from '../prompt/directives.js';

/** The model a turn runs on, and whether the host has yet to accept it for this agent. */
export interface TurnModel {
  model: string;
  /** A provider/model chosen by `/model`: the host may refuse it (LLM_MODEL_FORBIDDEN). */
  unchecked: boolean;
}

const USAGE = 'switch with /model fast|default|complex|provider/model, or /model reset';

/**
 * Apply a `/model` directive to the conversation and say what happened in a notice; answer the
 * model the turn runs on. Tiers are always allowed (the host lets every agent call them); a
 * provider/model is kept until the host refuses it ({@link refuseModel}).
 */
export function applyModelDirective(
  store: ConversationStore,
  conversationId: string,
  meshModel: string,
  directive: ModelDirective | undefined,
  emit: (event: ChatEvent) => void,
): TurnModel {
  const current = store.modelOf(conversationId);
  if (directive?.action === 'set' && directive.model !== current) {
    const isMesh = directive.model === meshModel;
    store.setModel(conversationId, isMesh ? undefined : directive.model);
    emit({
      type: 'notice',
      message: `model for this conversation: ${directive.model} (was ${current ?? meshModel})${
        isTier(directive.model) || isMesh ? '' : '; the host checks that this agent may call it'
      }`,
    });
  } else if (directive?.action === 'set') {
    emit({ type: 'notice', message: `model for this conversation: ${current} (unchanged)` });
  } else if (directive?.action === 'reset') {
    store.setModel(conversationId, undefined);
    emit({ type: 'notice', message: `model for this conversation: back to mesh.yaml's ${meshModel}` });
  } else if (directive?.action === 'show') {
    emit({
      type: 'notice',
      message:
        current === undefined
          ? `model for this conversation: ${meshModel} (mesh.yaml); ${USAGE}`
          : `model for this conversation: ${current} (set by /model; mesh.yaml's is ${meshModel}); ${USAGE}`,
    });
  }
  const model = store.modelOf(conversationId);
  return model === undefined
    ? { model: meshModel, unchecked: false }
    : { model, unchecked: !isTier(model) && model !== meshModel };
}

/**
 * The codes with which the host refuses a model itself (not a call): an agent may not call it, mesh.yaml
 * configures no such provider, the name is not a model, or the provider does not know it.
 */
export const MODEL_REFUSALS: ReadonlySet<string> = new Set([
  'LLM_MODEL_FORBIDDEN',
  'LLM_PROVIDER_UNKNOWN',
  'LLM_MODEL_INVALID',
  'LLM_MODEL_NOT_FOUND',
]);

/** The host refused the conversation's model: it is not kept, and the user is told why. */
export function refuseModel(
  store: ConversationStore,
  conversationId: string,
  refusal: { model: string; code: string; reason: string },
  meshModel: string,
  emit: (event: ChatEvent) => void,
): void {
  store.setModel(conversationId, undefined);
  emit({
    type: 'notice',
    message: `the host refused ${refusal.model} (${refusal.code}: ${refusal.reason}); the switch is not kept: back to ${meshModel}`,
  });
}

function isTier(model: string): boolean {
  return (TIER_NAMES as readonly string[]).includes(model);
}
