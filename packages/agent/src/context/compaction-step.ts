import type { ContextRequest, LlmMessage } from './context-manager.js';
import { type ContextServices, coverThrough, plural, saveState } from './context-services.js';
import type { ContextState } from './context-state-store.js';
import { mergeFacts } from './extracted-facts.js';
import { groupMessages, keptTurnsStart, lastGroupsStart } from './message-groups.js';
import { summarise } from './summariser.js';
import { appendDigest, isMostlyToolOutput, truncationLine } from './truncation-digest.js';

/** Failed compactions in a row that trip the circuit breaker. */
export const BREAKER_FAILURES = 3;
/** How long a tripped breaker keeps compaction off the summariser (truncation meanwhile). */
export const BREAKER_COOLDOWN_MS = 10 * 60_000;
/** A hard prune keeps the system prompt and this many message groups. */
export const HARD_PRUNE_GROUPS = 4;

/** True when messages lie between what is already covered and the turns kept verbatim. */
export function hasCompactableMessages(
  body: readonly LlmMessage[],
  state: ContextState,
  keepTurns: number,
): boolean {
  return keptTurnsStart(groupMessages(body), keepTurns) > state.covered;
}

/**
 * Compact once: the messages before the last `keep_turns` turns leave the prompt. `progressive`
 * folds them into the dual summary; `truncate` drops them (a one-line digest stays); `adaptive`
 * summarises unless the range is mostly tool output, and truncates when the summariser fails.
 * A summariser failure counts toward the circuit breaker; the third in a row hard-prunes.
 */
export async function runCompaction(
  services: ContextServices,
  request: ContextRequest,
  body: readonly LlmMessage[],
  state: ContextState,
): Promise<ContextState> {
  const { settings } = services;
  const cut = keptTurnsStart(groupMessages(body), settings.keep_turns);
  if (cut <= state.covered) return state;
  const range = body.slice(state.covered, cut);
  const breakerOpen = services.clock.now() < state.breakerUntil;
  const summarised =
    !breakerOpen &&
    (settings.strategy === 'progressive' || (settings.strategy === 'adaptive' && !isMostlyToolOutput(range)));
  if (!summarised) return truncate(services, request, body, state, cut, {}, '');
  const log = services.logger.child({ conversation: request.conversationId, cycle: state.cycle });
  try {
    // The flush read everything before `flushedThrough`: facts are asked for only from there on.
    const unreadFrom =
      cut > state.flushedThrough ? Math.max(0, state.flushedThrough - state.covered) : undefined;
    const { summary, facts } = await summarise(services.call, {
      previous: { userProfile: state.userSummary, conversation: state.conversationSummary },
      messages: range,
      unreadFrom,
      signal: request.signal,
      traceId: request.traceId,
    });
    const { ledger, fresh } = mergeFacts(state.facts, facts);
    await services.sink(request.conversationId, fresh, request.signal);
    log.info({ messages: range.length, facts: fresh.length }, 'context compacted with a summary');
    request.emit({
      type: 'notice',
      message: `Compacted ${plural(range.length, 'older message')} into a summary.`,
    });
    return saveState(
      services,
      request,
      coverThrough(state, body, cut, {
        userSummary: summary.userProfile,
        conversationSummary: summary.conversation,
        facts: ledger,
        failures: 0,
        // The summariser read the rest for facts: the next flush starts after it.
        flushedThrough: Math.max(state.flushedThrough, cut),
      }),
    );
  } catch (error) {
    if (request.signal.aborted) throw error;
    const failures = state.failures + 1;
    log.warn({ err: error, failures }, 'context summariser failed');
    if (failures >= BREAKER_FAILURES) {
      return hardPrune(services, request, body, state, {
        failures: 0,
        breakerUntil: services.clock.now() + BREAKER_COOLDOWN_MS,
      });
    }
    if (settings.strategy === 'adaptive') {
      return truncate(services, request, body, state, cut, { failures }, 'The summariser failed: ');
    }
    request.emit({
      type: 'notice',
      message: `Compacting the conversation failed (${failures} of ${BREAKER_FAILURES} before older messages are dropped).`,
    });
    return saveState(services, request, { ...state, failures });
  }
}

/**
 * Drop the messages before `cut` from the prompt, keeping a digest line of what they were. `why`
 * (when given) opens the notice, e.g. `The summariser failed: `.
 */
function truncate(
  services: ContextServices,
  request: ContextRequest,
  body: readonly LlmMessage[],
  state: ContextState,
  cut: number,
  patch: Partial<ContextState>,
  why: string,
): ContextState {
  const range = body.slice(state.covered, cut);
  const droppedDigest = appendDigest(state.droppedDigest, truncationLine(range, state.covered));
  const dropped = `dropped ${plural(range.length, 'older message')} from the context.`;
  request.emit({ type: 'notice', message: why ? `${why}${dropped}` : capitalise(dropped) });
  return saveState(services, request, coverThrough(state, body, cut, { ...patch, droppedDigest }));
}

/**
 * The last resort: keep the system prompt (with the conversation memory so far) and the last
 * {@link HARD_PRUNE_GROUPS} message groups, whatever `keep_turns` says.
 */
export function hardPrune(
  services: ContextServices,
  request: ContextRequest,
  body: readonly LlmMessage[],
  state: ContextState,
  patch: Partial<ContextState>,
): ContextState {
  const cut = lastGroupsStart(groupMessages(body), HARD_PRUNE_GROUPS);
  const why =
    patch.breakerUntil !== undefined
      ? `Compacting the conversation failed ${BREAKER_FAILURES} times in a row`
      : 'The conversation still did not fit the model';
  request.emit({
    type: 'notice',
    message: `${why}: kept only the system prompt, the conversation memory and the last ${HARD_PRUNE_GROUPS} message groups.`,
  });
  if (cut <= state.covered) return saveState(services, request, { ...state, ...patch });
  const range = body.slice(state.covered, cut);
  const droppedDigest = appendDigest(state.droppedDigest, truncationLine(range, state.covered));
  services.logger.warn(
    { conversation: request.conversationId, dropped: range.length },
    'context hard-pruned',
  );
  return saveState(services, request, coverThrough(state, body, cut, { ...patch, droppedDigest }));
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
